package redfish

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
)

// Task is the state of a Redfish task, a task monitor, or a Dell job.
type Task struct {
	URI      string
	State    string // TaskState (New, Running, Completed, Exception ...) or Dell JobState
	Percent  int
	Messages []string
	Done     bool
	Failed   bool
	// Scheduled: an iDRAC job waiting for the host's next reset (a staged
	// BIOS update); it ends only after that reset.
	Scheduled bool
}

// GetTask reads a task, a task monitor (202 while running, the final answer
// when done) or a Dell job, whichever the URI is.
func (e *Endpoint) GetTask(ctx context.Context, uri string) (*Task, error) {
	resp, err := e.Get(ctx, uri, nil)
	if err != nil {
		return nil, err
	}
	t := &Task{URI: uri}
	var doc struct {
		TaskState       string `json:"TaskState"`
		JobState        string `json:"JobState"`
		PercentComplete *int   `json:"PercentComplete"`
		Message         string `json:"Message"`
		Messages        []struct {
			MessageID string `json:"MessageId"`
			Message   string `json:"Message"`
		} `json:"Messages"`
		Oem struct {
			Dell struct {
				JobState string `json:"JobState"`
			} `json:"Dell"`
		} `json:"Oem"`
	}
	_ = json.Unmarshal(resp.Body, &doc)
	t.State = cmpOr(doc.TaskState, doc.JobState)
	t.Scheduled = strings.EqualFold(cmpOr(doc.Oem.Dell.JobState, doc.JobState), "Scheduled")
	if doc.PercentComplete != nil {
		t.Percent = *doc.PercentComplete
	}
	for _, m := range doc.Messages {
		t.Messages = append(t.Messages, strings.TrimSpace(m.MessageID+": "+m.Message))
	}
	if doc.Message != "" {
		t.Messages = append(t.Messages, doc.Message)
	}
	switch strings.ToLower(t.State) {
	case "completed":
		t.Done = true
	case "exception", "killed", "cancelled", "failed", "completedwitherrors":
		t.Done, t.Failed = true, true
	case "":
		// A task monitor answers 202 while the task runs and the task's
		// final response (no TaskState) once it is over.
		t.Done = resp.Status != http.StatusAccepted
	}
	return t, nil
}

// WaitTask polls a task until it ends; a failed task is an error carrying
// its messages.
func (e *Endpoint) WaitTask(ctx context.Context, uri string, w Waiter) (*Task, error) {
	return e.waitTask(ctx, uri, w, false)
}

// waitTask is WaitTask; untilScheduled also stops at an iDRAC job that
// is Scheduled (it waits for a reset only the caller can do).
func (e *Endpoint) waitTask(ctx context.Context, uri string, w Waiter, untilScheduled bool) (*Task, error) {
	var last *Task
	err := w.Until(ctx, "task "+uri+" on "+e.cfg.Name, func() (bool, string, error) {
		t, err := e.GetTask(ctx, uri)
		if err != nil {
			return false, "", err
		}
		last = t
		return t.Done || (untilScheduled && t.Scheduled), fmt.Sprintf("%s %d%%", t.State, t.Percent), nil
	})
	if err != nil {
		return last, err
	}
	if last.Failed {
		return last, fmt.Errorf("%w: task %s on %s ended %s: %s", ErrServer, uri, e.cfg.Name, last.State, strings.Join(last.Messages, "; "))
	}
	return last, nil
}
