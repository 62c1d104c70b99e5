package redfishmock

import (
	"net/http"
	"strconv"
	"time"
)

const (
	taskServicePath = "/redfish/v1/TaskService"
	tasksPath       = taskServicePath + "/Tasks"
	monitorsPath    = taskServicePath + "/TaskMonitors"
)

// Task states (TaskState in the Task schema).
const (
	TaskNew       = "New"
	TaskPending   = "Pending"
	TaskRunning   = "Running"
	TaskCompleted = "Completed"
	TaskException = "Exception"
)

type task struct {
	id, name  string
	state     string
	percent   int
	messages  []any
	start     time.Time
	ran       time.Time // when it started running
	end       time.Time
	jobPath   string // Dell: the same work as a Job under the manager
	jobType   string
	targetURI string
}

func (s *Service) installTaskService() {
	s.tasks = map[string]*task{}
	s.put(taskServicePath, obj{
		"@odata.id":                       taskServicePath,
		"@odata.type":                     "#TaskService.v1_3_0.TaskService",
		"Id":                              "TaskService",
		"Name":                            "Task Service",
		"ServiceEnabled":                  true,
		"CompletedTaskOverWritePolicy":    "Oldest",
		"LifeCycleEventOnTaskStateChange": true,
		"Tasks":                           ref(tasksPath),
	})
	s.collection(tasksPath, "#TaskCollection.TaskCollection", "Task Collection")
}

// newTask creates a task; id may be preset (Dell JID_ ids).
func (s *Service) newTask(id, name, state string) *task {
	if id == "" {
		s.taskSeq++
		id = strconv.Itoa(s.taskSeq)
	}
	t := &task{id: id, name: name, state: state, start: s.now()}
	s.tasks[id] = t
	s.addMember(tasksPath, tasksPath+"/"+id)
	s.renderTask(t)
	return t
}

func (s *Service) setTask(t *task, state string, percent int, msgs ...obj) {
	t.state, t.percent = state, percent
	if state != TaskPending && state != TaskNew && t.ran.IsZero() {
		t.ran = s.now()
	}
	for _, m := range msgs {
		t.messages = append(t.messages, m)
	}
	if state == TaskCompleted || state == TaskException {
		t.end = s.now()
	}
	s.renderTask(t)
}

func (s *Service) renderTask(t *task) {
	path := tasksPath + "/" + t.id
	status := "OK"
	if t.state == TaskException {
		status = "Critical"
	}
	msgs := t.messages
	if msgs == nil {
		msgs = []any{}
	}
	body := obj{
		"@odata.id":       path,
		"@odata.type":     "#Task.v1_7_4.Task",
		"Id":              t.id,
		"Name":            t.name,
		"TaskState":       t.state,
		"TaskStatus":      status,
		"PercentComplete": t.percent,
		"StartTime":       t.start.Format(time.RFC3339),
		"Messages":        msgs,
		"TaskMonitor":     monitorsPath + "/" + t.id,
	}
	if !t.end.IsZero() {
		body["EndTime"] = t.end.Format(time.RFC3339)
	}
	if t.jobPath != "" {
		body["Oem"] = obj{"Dell": dellJobOem(t)}
	}
	s.put(path, body)
	if t.jobPath != "" {
		s.renderJob(t)
	}
}

// renderJob publishes the task's Dell job under the manager's job queue,
// as iDRAC 9 does: a DellJob with Dell's own states (Scheduled, Running,
// Completed, Failed), the same document its Task carries under Oem.Dell.
func (s *Service) renderJob(t *task) {
	body := dellJobOem(t)
	body["@odata.id"] = t.jobPath
	s.put(t.jobPath, body)
}

// monitor finds the task behind a task-monitor URI.
func (s *Service) monitor(path string) *task {
	if len(path) <= len(monitorsPath)+1 || path[:len(monitorsPath)+1] != monitorsPath+"/" {
		return nil
	}
	return s.tasks[path[len(monitorsPath)+1:]]
}

// serveMonitor answers 202 while the task runs and 200 with the task once it
// is finished, as the Redfish asynchronous-operation protocol says.
func (s *Service) serveMonitor(t *task) (int, map[string]string, []byte) {
	body := s.get(tasksPath + "/" + t.id)
	raw, _ := jsonMarshal(body)
	if t.state == TaskCompleted || t.state == TaskException {
		return http.StatusOK, nil, raw
	}
	return http.StatusAccepted, map[string]string{"Location": monitorsPath + "/" + t.id, "Retry-After": "1"}, raw
}

// accepted is the 202 reply that hands a client a task monitor.
func accepted(s *Service, t *task) *reply {
	return &reply{status: http.StatusAccepted, body: s.get(tasksPath + "/" + t.id),
		headers: map[string]string{"Location": monitorsPath + "/" + t.id, "Retry-After": "1"}}
}
