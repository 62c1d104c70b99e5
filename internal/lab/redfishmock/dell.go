package redfishmock

import (
	"fmt"
	"net/http"
	"time"
)

// What an iDRAC 9 adds to the DMTF model, as far as Redfish clients written
// for Dell (dell/terraform-provider-redfish, Dell's scripts) rely on it: the
// manager's Dell OEM links and data, the DellAttributes documents (the
// provider reads Info.1.ServerGen there before any BIOS change), and BIOS
// jobs reported as Tasks under TaskService with their Dell job under Oem.

// dellServerGen is the generation of the R640/R740 the designs model; the
// manager's Model ("14G Monolithic") says the same.
const dellServerGen = "14G"

// dellAttributeSet is one DellAttributes document under the manager.
type dellAttributeSet struct {
	fqdd, id string // path segment (FQDD) and Id as iDRAC 9 names them
	attrs    obj
}

func (s *Service) dellAttributeSets() []dellAttributeSet {
	_, fw := dellManagerModel()
	return []dellAttributeSet{
		{"iDRAC.Embedded.1", "iDRACAttributes", obj{
			"Info.1.Product":     "Integrated Dell Remote Access Controller",
			"Info.1.Name":        "iDRAC",
			"Info.1.Description": "This system component provides a complete set of remote management functions for Dell PowerEdge Servers",
			"Info.1.Version":     fw,
			"Info.1.Build":       "30",
			"Info.1.Type":        dellServerGen + " Monolithic",
			"Info.1.ServerGen":   dellServerGen,
			"Info.1.IPMIVersion": "2.0",
			"Info.1.HWRev":       "0.01",
			"IPMILan.1.Enable":   "Disabled",
			"NIC.1.MACAddress":   s.mac("D0:8E:79", 0),
			"NIC.1.DNSRacName":   "idrac-" + s.serial(),
			"Redfish.1.Enable":   "Enabled",
			"WebServer.1.Enable": "Enabled",
		}},
		{"System.Embedded.1", "SystemAttributes", obj{
			"ServerInfo.1.ServiceTag": s.serial(),
			"ServerInfo.1.NodeID":     s.serial(),
			"ServerInfo.1.ServerType": "Rack",
			"ServerOS.1.HostName":     s.spec.Node,
			"ServerPwr.1.PSRedPolicy": "A/B Grid Redundant",
		}},
		{"LifecycleController.Embedded.1", "LCAttributes", obj{
			"LCAttributes.1.LifecycleControllerState":        "Enabled",
			"LCAttributes.1.CollectSystemInventoryOnRestart": "Enabled",
			"LCAttributes.1.AutoUpdate":                      "Disabled",
		}},
	}
}

func dellManagerModel() (model, firmware string) { return dellServerGen + " Monolithic", "4.40.00.00" }

// dellManagerExtras returns the Actions, Links.Oem and Oem members of the
// iDRAC manager document and publishes the documents they point to.
func (s *Service) dellManagerExtras() (actions, linksOem, oem obj) {
	mgr := s.sys.mgrPath
	var attrPaths []string
	for _, set := range s.dellAttributeSets() {
		p := mgr + "/Oem/Dell/DellAttributes/" + set.fqdd
		attrPaths = append(attrPaths, p)
		s.put(p, obj{
			"@odata.id":         p,
			"@odata.type":       "#DellAttributes.v1_0_0.DellAttributes",
			"Id":                set.id,
			"Name":              "OEMAttributeRegistry",
			"Description":       "This schema provides the oem attributes",
			"AttributeRegistry": "ManagerAttributeRegistry.v1_0_0",
			"Attributes":        set.attrs,
		})
	}
	cardPath := mgr + "/Oem/Dell/DelliDRACCard/iDRAC.Embedded.1-1_0x23_IDRACinfo"
	card := obj{
		"@odata.id":               cardPath,
		"@odata.type":             "#DelliDRACCard.v1_1_0.DelliDRACCard",
		"Id":                      "iDRAC.Embedded.1-1_0x23_IDRACinfo",
		"Name":                    "DelliDRACCard",
		"Description":             "An instance of DelliDRACCard will have data specific to the Integrated Dell Remote Access Controller (iDRAC) in the managed system.",
		"IPMIVersion":             "2.0",
		"LastSystemInventoryTime": s.now().Add(-24 * time.Hour).Format(time.RFC3339),
		"LastUpdateTime":          s.now().Format(time.RFC3339),
	}
	s.put(cardPath, card)
	s.handle(http.MethodPost, mgr+"/Actions/Manager.Reset", postManagerReset)

	actions = obj{
		"#Manager.Reset": obj{"target": mgr + "/Actions/Manager.Reset", "ResetType@Redfish.AllowableValues": []string{"GracefulRestart"}},
		// iDRAC lists its Server Configuration Profile actions here; the lab
		// implements none of them, so it lists none, but keeps the object
		// Dell's tools decode.
		"Oem": obj{},
	}
	linksOem = obj{"Dell": obj{
		"@odata.type":                "#DellOem.v1_3_0.DellOemLinks",
		"DellAttributes":             refs(attrPaths...),
		"DellAttributes@odata.count": len(attrPaths),
		"Jobs":                       ref(s.sys.jobsPath),
	}}
	oem = obj{"Dell": obj{"@odata.type": "#DellManager.v1_2_0.DellManager", "DelliDRACCard": card}}
	return actions, linksOem, oem
}

// postManagerReset restarts the iDRAC: nothing the lab models survives or
// changes across it, so it only checks the request.
func postManagerReset(_ *Service, r *request) (*reply, error) {
	const action = "Manager.Reset"
	for _, k := range sortedKeys(r.body) {
		if k != "ResetType" {
			return nil, rfErr(http.StatusBadRequest, "ActionParameterUnknown", action, k)
		}
	}
	if rt, present := r.body["ResetType"]; present && rt != "GracefulRestart" {
		return nil, rfErr(http.StatusBadRequest, "ActionParameterValueNotInList", fmt.Sprint(rt), "ResetType", action)
	}
	return &reply{status: http.StatusNoContent}, nil
}

// dellJobOem is the Dell job (DellJob) as iDRAC 9 serves it in the job
// queue and embeds it in the job's Task under TaskService (Oem.Dell).
func dellJobOem(t *task) obj {
	state, msg, msgID := "Scheduled", "Task successfully scheduled.", "JCP001"
	switch t.state {
	case TaskRunning:
		state, msg, msgID = "Running", "Task is running.", "PR20"
	case TaskCompleted:
		state, msg, msgID = "Completed", "Job completed successfully.", "PR19"
	case TaskException:
		state, msg, msgID = "Failed", "Job failed.", "SYS051"
	}
	end := "TIME_NA"
	if !t.end.IsZero() {
		end = t.end.Format(time.RFC3339)
	}
	job := obj{
		"@odata.type":       "#DellJob.v1_2_0.DellJob",
		"Id":                t.id,
		"Name":              t.name,
		"Description":       "Job Instance",
		"JobType":           t.jobType,
		"JobState":          state,
		"Message":           msg,
		"MessageId":         msgID,
		"MessageArgs":       []any{},
		"PercentComplete":   t.percent,
		"StartTime":         "TIME_NOW",
		"EndTime":           end,
		"CompletionTime":    nil,
		"TargetSettingsURI": nil,
	}
	if !t.ran.IsZero() {
		job["ActualRunningStartTime"] = t.ran.Format(time.RFC3339)
	}
	if !t.end.IsZero() {
		job["CompletionTime"] = end
		job["ActualRunningStopTime"] = end
	}
	return job
}
