// Package protocol holds the hpcstorage-agent wire format: the spec (what a
// node should look like), the result of a run, and the facts a node reports.
// It is the only agent package the provider and the SSH transport import, so
// it depends on the standard library and sigs.k8s.io/yaml only.
//
// The shape is a public interface (see docs/guides/agent.md): extend it with new
// optional fields, never rename.
package protocol

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strconv"
	"unicode/utf8"
)

// APIVersion is the only spec and result version this agent speaks.
const APIVersion = "hpcstorage/v1"

// Spec is an owner plus an ordered list of items.
type Spec struct {
	APIVersion string `json:"apiVersion"`
	Owner      string `json:"owner"`
	Items      []Item `json:"items"`
}

// Item is a one-key map naming its type: exactly one field is set.
type Item struct {
	Sysctl         *Sysctl         `json:"sysctl,omitempty"`
	File           *File           `json:"file,omitempty"`
	UdevRule       *UdevRule       `json:"udev_rule,omitempty"`
	BlockQueue     *BlockQueue     `json:"block_queue,omitempty"`
	THP            *THP            `json:"thp,omitempty"`
	KernelModule   *KernelModule   `json:"kernel_module,omitempty"`
	Service        *Service        `json:"service,omitempty"`
	Mount          *Mount          `json:"mount,omitempty"`
	Command        *Command        `json:"command,omitempty"`
	PackageVersion *PackageVersion `json:"package_version,omitempty"`
}

// Kinds lists the item type names in the order the agent documents them.
var Kinds = []string{"sysctl", "file", "udev_rule", "block_queue", "thp", "kernel_module", "service", "mount",
	"command", "package_version"}

// Kind returns the item's type name ("" when no type, or the first of
// several: Validate reports both cases).
func (it Item) Kind() string {
	k := it.kinds()
	if len(k) == 0 {
		return ""
	}
	return k[0]
}

func (it Item) kinds() []string {
	var out []string
	set := []bool{it.Sysctl != nil, it.File != nil, it.UdevRule != nil, it.BlockQueue != nil, it.THP != nil,
		it.KernelModule != nil, it.Service != nil, it.Mount != nil, it.Command != nil, it.PackageVersion != nil}
	for i, ok := range set {
		if ok {
			out = append(out, Kinds[i])
		}
	}
	return out
}

// ID is the item's stable id, "type:key" (thp has no key). It is what the
// result reports and what people grep for.
func (it Item) ID() string {
	switch {
	case it.Sysctl != nil:
		return "sysctl:" + it.Sysctl.Key
	case it.File != nil:
		return "file:" + it.File.Path
	case it.UdevRule != nil:
		return "udev_rule:" + it.UdevRule.Name
	case it.BlockQueue != nil:
		return "block_queue:" + it.BlockQueue.Match.Key()
	case it.THP != nil:
		return "thp"
	case it.KernelModule != nil:
		return "kernel_module:" + it.KernelModule.Name
	case it.Service != nil:
		return "service:" + it.Service.Name
	case it.Mount != nil:
		return "mount:" + it.Mount.Path
	case it.Command != nil:
		if it.Command.Name != "" {
			return "command:" + it.Command.Name
		}
		if len(it.Command.Argv) > 0 {
			return "command:" + it.Command.Argv[0]
		}
		return "command:"
	case it.PackageVersion != nil:
		return "package_version:" + it.PackageVersion.Name
	}
	return ""
}

// Notifies returns the services the item notifies when it changes.
func (it Item) Notifies() []string {
	switch {
	case it.Sysctl != nil:
		return it.Sysctl.Notify
	case it.File != nil:
		return it.File.Notify
	case it.UdevRule != nil:
		return it.UdevRule.Notify
	case it.KernelModule != nil:
		return it.KernelModule.Notify
	case it.Service != nil:
		return it.Service.Notify
	case it.Mount != nil:
		return it.Mount.Notify
	case it.Command != nil:
		return it.Command.Notify
	}
	return nil
}

// Scalar is a string that also accepts a JSON/YAML number or boolean, so
// `value: 20` and `value: "20"` mean the same.
type Scalar string

// UnmarshalJSON accepts a string, number or boolean.
func (s *Scalar) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if len(b) > 0 && b[0] == '"' {
		var v string
		if err := json.Unmarshal(b, &v); err != nil {
			return err
		}
		*s = Scalar(v)
		return nil
	}
	switch string(b) {
	case "true", "false":
		*s = Scalar(b)
		return nil
	case "null":
		return fmt.Errorf("want a string, number or boolean, got null")
	}
	var n json.Number
	if err := json.Unmarshal(b, &n); err != nil {
		return fmt.Errorf("want a string, number or boolean")
	}
	*s = Scalar(n)
	return nil
}

// Sysctl sets one kernel parameter live (proc/sys) and persists it in the
// owner's drop-in under etc/sysctl.d.
type Sysctl struct {
	Key    string   `json:"key"`
	Value  Scalar   `json:"value"`
	Notify []string `json:"notify,omitempty"`
}

// File manages a file's content (whole, or a key=value overlay that keeps the
// rest of the file), mode, owner and group.
type File struct {
	Path    string  `json:"path"`
	Content *string `json:"content,omitempty"`
	// ContentBase64 is content that is not UTF-8 text (a corosync authkey,
	// random bytes): a JSON string cannot carry those bytes.
	ContentBase64 *string           `json:"content_base64,omitempty"`
	Set           map[string]Scalar `json:"set,omitempty"`
	Mode          string            `json:"mode,omitempty"`
	Owner         string            `json:"owner,omitempty"`
	Group         string            `json:"group,omitempty"`
	Notify        []string          `json:"notify,omitempty"`
	// Sensitive hides the content in diffs (keys, passwords, auth files).
	Sensitive bool `json:"sensitive,omitempty"`
}

// SetBytes sets the file's whole content: as text when it is UTF-8, else
// base64 (encoding/json would turn each invalid byte into U+FFFD).
func (f *File) SetBytes(b []byte) {
	f.Content, f.ContentBase64 = nil, nil
	if utf8.Valid(b) {
		s := string(b)
		f.Content = &s
		return
	}
	s := base64.StdEncoding.EncodeToString(b)
	f.ContentBase64 = &s
}

// UdevRule is a rules file in etc/udev/rules.d; udev is reloaded and
// triggered only when it changes.
type UdevRule struct {
	Name    string   `json:"name"`
	Content string   `json:"content"`
	Notify  []string `json:"notify,omitempty"`
}

// BlockQueue tunes the request queue of every disk the match selects.
type BlockQueue struct {
	Match        DiskMatch `json:"match"`
	Scheduler    string    `json:"scheduler,omitempty"`
	NrRequests   *int      `json:"nr_requests,omitempty"`
	ReadAheadKB  *int      `json:"read_ahead_kb,omitempty"`
	MaxSectorsKB *int      `json:"max_sectors_kb,omitempty"`
}

// DiskMatch selects disks; every field given must match.
type DiskMatch struct {
	Name       string `json:"name,omitempty"`  // glob on the kernel name, e.g. "sd*"
	WWN        string `json:"wwn,omitempty"`   // "0x600c0ff0..." or "naa.600c..."
	Model      string `json:"model,omitempty"` // glob on device/model
	Rotational *bool  `json:"rotational,omitempty"`
}

// Key is the match's part of the item id: the name glob, else the WWN,
// else the model, else "rotational=<bool>".
func (m DiskMatch) Key() string {
	switch {
	case m.Name != "":
		return m.Name
	case m.WWN != "":
		return m.WWN
	case m.Model != "":
		return "model=" + m.Model
	case m.Rotational != nil:
		return "rotational=" + strconv.FormatBool(*m.Rotational)
	}
	return ""
}

// THP sets transparent huge pages; an empty field is left alone.
type THP struct {
	Enabled string `json:"enabled,omitempty"`
	Defrag  string `json:"defrag,omitempty"`
}

// KernelModule loads a module, sets its options and loads it at boot.
type KernelModule struct {
	Name    string   `json:"name"`
	Options string   `json:"options,omitempty"`
	Load    *bool    `json:"load,omitempty"` // default true
	Boot    *bool    `json:"boot,omitempty"` // load at boot (modules-load.d); default = load
	Notify  []string `json:"notify,omitempty"`
}

// Service manages a systemd unit.
type Service struct {
	Name    string   `json:"name"`
	Enabled *bool    `json:"enabled,omitempty"`
	State   string   `json:"state,omitempty"` // started|stopped|restarted
	Masked  *bool    `json:"masked,omitempty"`
	DropIns []DropIn `json:"dropins,omitempty"`
	Notify  []string `json:"notify,omitempty"`
}

// DropIn is etc/systemd/system/<unit>.d/<name>.conf.
type DropIn struct {
	Name    string `json:"name"`
	Content string `json:"content"`
}

// Mount mounts a device at a path.
type Mount struct {
	Device  string   `json:"device"` // path (e.g. /dev/disk/by-id/wwn-0x...), LABEL=x or UUID=x
	Path    string   `json:"path"`
	FSType  string   `json:"fstype"`
	Options []string `json:"options,omitempty"`
	Persist string   `json:"persist,omitempty"` // fstab (default) | none
	Notify  []string `json:"notify,omitempty"`
}

// Command runs argv once, guarded by creates or unless.
type Command struct {
	Name    string   `json:"name,omitempty"` // id suffix; default argv[0]
	Argv    []string `json:"argv"`
	Creates string   `json:"creates,omitempty"`
	Unless  []string `json:"unless,omitempty"`
	// UnlessMatch are regular expressions (RE2) the unless command's stdout
	// must all match, besides exiting 0, for the guard to hold: the
	// command runs when what a read-only query prints differs from what
	// it should print.
	UnlessMatch []string `json:"unless_match,omitempty"`
	Notify      []string `json:"notify,omitempty"`
	// ReadOnly marks a query that changes nothing: it runs while planning,
	// in --check too, never counts as a change, and its stdout is returned
	// in the item result's output. A non-zero exit is an item error.
	ReadOnly bool `json:"read_only,omitempty"`
}

// PackageVersion is a floor on an installed package: a preflight check.
type PackageVersion struct {
	Name string `json:"name"`
	Min  string `json:"min"`
	// Why is what goes wrong below the floor, added to the refusal (one
	// line, so an administrator knows why the floor is there).
	Why string `json:"why,omitempty"`
	// Platforms are the distribution releases the floor is about, as
	// rpm's dist tags name them ("el7", "el9"); on a node of another
	// release it is not checked (a warning says so). Empty: the release
	// of Min's dist tag when it has one (".el7_6" is el7), else every node.
	Platforms []string `json:"platforms,omitempty"`
}
