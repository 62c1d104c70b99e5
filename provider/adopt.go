package provider

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
)

// A killed apply leaves on the array objects it created but never saved in
// the state. The next create of the same name finds them: it adopts one that
// is what the configuration asks for, and refuses any other with the import
// command, so the run converges without touching what it cannot account for.

// existsError reports an object of the same name that differs from the
// configuration. The provider is not told the resource's address, so the
// command names it the way Terraform shows it under the error.
func existsError(diags *diag.Diagnostics, at path.Path, summary, object, differs, typeName, importID string) {
	addError(diags, at, summary, fmt.Sprintf("%s is already on the array and differs from the configuration: %s. "+
		"Terraform creates nothing over it. Either delete or rename it on the array, or bring it under Terraform "+
		"(the next plan then shows what it changes):\n\n  terraform import '<address>' %s\n\n"+
		"where <address> is this resource's address, as the \"with\" line of this message gives it (e.g. %s.example).",
		object, differs, importID, typeName), nil)
}

// adoptedWarning says an existing object was (or will be) taken over
// instead of created.
func adoptedWarning(diags *diag.Diagnostics, summary, object, importID string) {
	diags.AddWarning(summary, fmt.Sprintf("Already on the array as the configuration describes it: %s. Most likely an "+
		"earlier run created it and stopped before saving it in the state. Terraform adopts it instead of creating "+
		"it anew; its import id is %s.", object, importID))
}

// plannedGroups records, during one plan, the disk groups planned for
// creation with the capacity their drives and RAID level give, so a volume
// of the same plan can be checked against it before the group exists.
type plannedGroups struct{ m sync.Map }

func (p *plannedGroups) put(endpoint, storage, name string, usable int64, why string) {
	if p != nil {
		p.m.Store(endpoint+"/"+storage+"/"+name, plannedGroup{usable, why})
	}
}

func (p *plannedGroups) get(endpoint, storage, name string) (plannedGroup, bool) {
	if p == nil {
		return plannedGroup{}, false
	}
	v, ok := p.m.Load(endpoint + "/" + storage + "/" + name)
	if !ok {
		return plannedGroup{}, false
	}
	return v.(plannedGroup), true
}

type plannedGroup struct {
	usable int64
	how    string // "RAID6 over 10 drives of 12000000000000 bytes"
}

// addVolume records the size a volume of the plan takes in a planned group
// and returns what all the group's volumes planned so far take.
func (p *plannedGroups) addVolume(endpoint, storage, group, volume string, bytes int64) int64 {
	if p == nil {
		return bytes
	}
	v, _ := p.m.LoadOrStore("volumes:"+endpoint+"/"+storage+"/"+group, &sync.Map{})
	sizes := v.(*sync.Map)
	sizes.Store(volume, bytes)
	total := int64(0)
	sizes.Range(func(_, b any) bool { total += b.(int64); return true })
	return total
}

// replacedKey is private plan data naming the object a plan replaces.
// Terraform plans the new object of a replacement a second time with no
// prior state but with this data: the old object, still on the array under
// the same name, is the one being replaced, not a leftover to adopt.
const replacedKey = "replaced_id"

type privateSetter interface {
	SetKey(ctx context.Context, key string, value []byte) diag.Diagnostics
}

type privateGetter interface {
	GetKey(ctx context.Context, key string) ([]byte, diag.Diagnostics)
}

func markReplaced(ctx context.Context, p privateSetter, id string, diags *diag.Diagnostics) {
	if p == nil || id == "" {
		return
	}
	b, _ := json.Marshal(id)
	diags.Append(p.SetKey(ctx, replacedKey, b)...)
}

// replacedID is the id markReplaced recorded, "" on a plain create.
func replacedID(ctx context.Context, p privateGetter, diags *diag.Diagnostics) string {
	if p == nil {
		return ""
	}
	b, d := p.GetKey(ctx, replacedKey)
	diags.Append(d...)
	var id string
	if len(b) > 0 && json.Unmarshal(b, &id) != nil {
		return ""
	}
	return id
}
