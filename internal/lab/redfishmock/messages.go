package redfishmock

import (
	"fmt"
	"net/http"
	"strings"
)

// baseRegistry is the DMTF Base message registry version whose ids the mock
// emits (the one iDRAC9 firmware of the reference era publishes).
const baseRegistry = "Base.1.12"

// baseMessages holds the text and severity of the Base registry messages the
// mock uses; %1, %2 ... are replaced by the message arguments.
var baseMessages = map[string]struct{ text, severity, resolution string }{
	"Success":                          {"The request completed successfully.", "OK", "None"},
	"Created":                          {"The resource has been created successfully.", "OK", "None"},
	"GeneralError":                     {"A general error has occurred.  See Resolution for information on how to resolve the error, or @Message.ExtendedInfo if Resolution is not provided.", "Critical", "None."},
	"PropertyUnknown":                  {"The property %1 is not in the list of valid properties for the resource.", "Warning", "Remove the unknown property from the request body and resubmit the request if the operation failed."},
	"PropertyValueTypeError":           {"The value '%1' for the property %2 is of a different type than the property can accept.", "Warning", "Correct the value for the property in the request body and resubmit the request if the operation failed."},
	"PropertyValueNotInList":           {"The value '%1' for the property %2 is not in the list of acceptable values.", "Warning", "Choose a value from the enumeration list that the implementation can support and resubmit the request if the operation failed."},
	"PropertyValueOutOfRange":          {"The value '%1' for the property %2 is not in the supported range of acceptable values.", "Warning", "Correct the value for the property in the request body and resubmit the request if the operation failed."},
	"PropertyNotWritable":              {"The property %1 is a read only property and cannot be assigned a value.", "Warning", "Remove the property from the request body and resubmit the request if the operation failed."},
	"PropertyMissing":                  {"The property %1 is a required property and must be included in the request.", "Warning", "Ensure that the property is in the request body and has a valid value and resubmit the request if the operation failed."},
	"PropertyValueConflict":            {"The property '%1' could not be written because its value would conflict with the value of the '%2' property.", "Warning", "No resolution is required."},
	"PropertyValueResourceConflict":    {"The property '%1' with the requested value of '%2' could not be written because the value conflicts with the state or configuration of the resource at '%3'.", "Warning", "No resolution is required."},
	"PropertyValueIncorrect":           {"The property '%1' with the requested value of '%2' could not be written because the value does not meet the constraints of the implementation.", "Warning", "No resolution is required."},
	"MalformedJSON":                    {"The request body submitted was malformed JSON and could not be parsed by the receiving service.", "Critical", "Ensure that the request body is valid JSON and resubmit the request."},
	"ActionNotSupported":               {"The action %1 is not supported by the resource.", "Critical", "The action supplied cannot be resubmitted to the implementation.  Perhaps the action was invalid, the wrong resource was the target or the implementation documentation may be of assistance."},
	"ActionParameterMissing":           {"The action %1 requires the parameter %2 to be present in the request body.", "Critical", "Supply the action with the required parameter in the request body when the request is resubmitted."},
	"ActionParameterUnknown":           {"The action %1 was submitted with the invalid parameter %2.", "Warning", "Correct the invalid parameter and resubmit the request if the operation failed."},
	"ActionParameterValueNotInList":    {"The value '%1' for the parameter %2 in the action %3 is not in the list of acceptable values.", "Warning", "Choose a value from the enumeration list that the implementation can support and resubmit the request if the operation failed."},
	"ResourceInUse":                    {"The change to the requested resource failed because the resource is in use or in transition.", "Warning", "Remove the condition and resubmit the request if the operation failed."},
	"ResourceNotFound":                 {"The requested resource of type %1 named '%2' was not found.", "Critical", "Provide a valid resource identifier and resubmit the request."},
	"ResourceAlreadyExists":            {"The requested resource of type %1 with the property %2 with the value '%3' already exists.", "Critical", "Do not repeat the create operation as the resource has already been created."},
	"ResourceCannotBeDeleted":          {"The delete request failed because the resource requested cannot be deleted.", "Critical", "Do not attempt to delete a non-deletable resource."},
	"ResourceExhaustion":               {"The resource '%1' was unable to satisfy the request due to unavailability of resources.", "Critical", "Ensure that the resources are available and resubmit the request."},
	"NoValidSession":                   {"There is no valid session established with the implementation.", "Critical", "Establish a session before attempting any operations."},
	"SessionLimitExceeded":             {"The session establishment failed due to the number of simultaneous sessions exceeding the limit of the implementation.", "Critical", "Reduce the number of other sessions before trying to establish the session or increase the limit of simultaneous sessions, if supported."},
	"InternalError":                    {"The request failed due to an internal service error.  The service is still operational.", "Critical", "Resubmit the request.  If the problem persists, consider resetting the service."},
	"ServiceTemporarilyUnavailable":    {"The service is temporarily unavailable.  Retry in %1 seconds.", "Critical", "Wait for the indicated retry duration and retry the operation."},
	"PreconditionFailed":               {"The ETag supplied did not match the ETag required to change this resource.", "Critical", "Try the operation again using the appropriate ETag."},
	"PreconditionRequired":             {"A precondition header or annotation is required to change this resource.", "Critical", "Try the operation again using an If-Match or If-None-Match header and appropriate ETag."},
	"QueryParameterValueTypeError":     {"The value '%1' for the query parameter %2 is of a different type than the parameter can accept.", "Warning", "Correct the value for the query parameter in the request and resubmit the request if the operation failed."},
	"QueryParameterOutOfRange":         {"The value '%1' for the query parameter %2 is out of range %3.", "Warning", "Reduce the value for the query parameter to a value that is within range."},
	"QueryNotSupported":                {"Querying is not supported by the implementation.", "Warning", "Remove the query parameters and resubmit the request if the operation failed."},
	"InvalidURI":                       {"The URI %1 was not found.", "Critical", "Provide a valid URI and resubmit the request."},
	"CreateFailedMissingReqProperties": {"The create operation failed because the required property %1 was missing from the request.", "Critical", "Correct the body to include the required property with a valid value and resubmit the request if the operation failed."},
	"OperationFailed":                  {"An error occurred internal to the service as part of the overall request.  Partial results may have been returned.", "Warning", "Resubmit the request.  If the problem persists, consider resetting the service or provider."},
}

// message is one @Message.ExtendedInfo entry.
func message(id string, args ...string) obj {
	m, ok := baseMessages[id]
	if !ok {
		panic("redfishmock: unknown Base message " + id)
	}
	text := m.text
	for i := len(args); i >= 1; i-- { // backwards so %1 does not eat %10
		text = strings.ReplaceAll(text, fmt.Sprintf("%%%d", i), args[i-1])
	}
	if args == nil {
		args = []string{}
	}
	return obj{
		"@odata.type":     "#Message.v1_3_0.Message",
		"MessageId":       baseRegistry + "." + id,
		"Message":         text,
		"MessageArgs":     args,
		"MessageSeverity": m.severity,
		"Resolution":      m.resolution,
	}
}

// apiError is a Redfish error response: an HTTP status plus Base messages.
// Handlers return it as an error; the router writes it in the Redfish format.
type apiError struct {
	status   int
	summary  string // optional human text for error.message
	messages []obj
	headers  map[string]string
}

func (e *apiError) Error() string {
	ids := make([]string, 0, len(e.messages))
	for _, m := range e.messages {
		ids = append(ids, fmt.Sprint(m["MessageId"]))
	}
	return fmt.Sprintf("redfish error %d %s: %s", e.status, strings.Join(ids, ","), e.summary)
}

// rfErr builds an error with one Base message.
func rfErr(status int, id string, args ...string) *apiError {
	return &apiError{status: status, messages: []obj{message(id, args...)}}
}

// withSummary sets the human-readable error.message.
func (e *apiError) withSummary(format string, a ...any) *apiError {
	e.summary = fmt.Sprintf(format, a...)
	return e
}

// body renders the error in the format of the Redfish specification.
func (e *apiError) body() obj {
	code, msg := baseRegistry+".GeneralError", "A general error has occurred. See ExtendedInfo for more information."
	if len(e.messages) == 1 {
		code = fmt.Sprint(e.messages[0]["MessageId"])
		msg = fmt.Sprint(e.messages[0]["Message"])
	}
	if e.summary != "" {
		msg = e.summary
	}
	info := make([]any, len(e.messages))
	for i, m := range e.messages {
		info[i] = m
	}
	return obj{"error": obj{"code": code, "message": msg, "@Message.ExtendedInfo": info}}
}

// errorList collects validation failures so one response reports all of them,
// as BMCs do for a PATCH with several bad attributes.
type errorList struct {
	status   int
	messages []obj
}

func (l *errorList) add(status int, id string, args ...string) {
	if l.status == 0 || status > l.status {
		l.status = status
	}
	l.messages = append(l.messages, message(id, args...))
}

func (l *errorList) err() error {
	if len(l.messages) == 0 {
		return nil
	}
	return &apiError{status: l.status, messages: l.messages}
}

func notFound(path string) *apiError {
	return rfErr(http.StatusNotFound, "InvalidURI", path)
}
