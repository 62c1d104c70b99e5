package provider

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/list"
	listschema "github.com/hashicorp/terraform-plugin-framework/list/schema"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/hpcstorage/terraform-provider-hpcstorage/agent/protocol"
)

// Node services a node can list: each apply leaves the resource's record
// on the node (recordDir/<owner>.json), which import reads back. A list
// block names the hosts; the records whose owner is of the type are its
// objects, built by the type's own import and read.

// ownerMatch says whether an owner belongs to a type and, if so, the tail
// of its import id (host/<tail>).
type ownerMatch func(owner string) (tail string, ok bool)

func exactOwner(owner string) ownerMatch {
	return func(o string) (string, bool) { return o, o == owner }
}

// prefixOwner matches owner prefix+x; keep says whether the tail is the
// whole owner or only x (a BeeGFS target's id ends in its WWN).
func prefixOwner(prefix string, keep bool) ownerMatch {
	return func(o string) (string, bool) {
		x, ok := strings.CutPrefix(o, prefix)
		if !ok || x == "" {
			return "", false
		}
		if keep {
			return o, true
		}
		return x, true
	}
}

func nodeServiceList(res func() resource.Resource, what string, match ownerMatch) func() list.ListResource {
	return func() list.ListResource {
		return &lister{resource: res, find: findOnNodes(match), schema: listschema.Schema{
			MarkdownDescription: "The " + what + " this provider applied on the given nodes, read back from the record each " +
				"apply leaves on the node (as an import reads it). Objects made by hand, with no record, are not listed.",
			Attributes: map[string]listschema.Attribute{
				"hosts": listschema.ListAttribute{Required: true, ElementType: types.StringType,
					MarkdownDescription: "The nodes to list, as the resources' `host` (SSH reaches them with the provider's `ssh` settings)."},
			},
		}}
	}
}

// recordListing prints one owner per record file, with shell built-ins
// only (the glob, echo): no other program on the node.
func recordListing() protocol.Item {
	return protocol.Item{Command: &protocol.Command{Name: "resource-records", ReadOnly: true,
		Argv: []string{"/bin/sh", "-c", `for f in "$1"/*.json; do [ -f "$f" ] && { f=${f##*/}; echo "${f%.json}"; }; done; true`,
			"resource-records", recordDir}}}
}

func findOnNodes(match ownerMatch) func(context.Context, *providerData, tfsdk.Config, *diag.Diagnostics) []listing {
	return func(ctx context.Context, d *providerData, config tfsdk.Config, diags *diag.Diagnostics) []listing {
		var hosts []string
		diags.Append(config.GetAttribute(ctx, path.Root("hosts"), &hosts)...)
		if diags.HasError() {
			return nil
		}
		var out []listing
		for _, host := range hosts {
			run := nodeRun{nodes: d.Nodes, host: host, owner: "hpcstorage-list"}
			res, ok := run.exec(ctx, []protocol.Item{recordListing()}, true, diags)
			if !ok {
				return nil
			}
			if res.Failed || len(res.Items) == 0 {
				addError(diags, path.Root("hosts"), "Node Not Listed", fmt.Sprintf("Host %s: the records could not be read.", host),
					fmt.Errorf("%s", failedItems(res)))
				return nil
			}
			owners := strings.Fields(res.Items[0].Output)
			sort.Strings(owners)
			for _, o := range owners {
				if tail, ok := match(o); ok {
					out = append(out, listing{id: host + "/" + tail, display: host + ": " + o})
				}
			}
		}
		return out
	}
}

// The node services that can be listed: those whose import takes
// host/<owner> (or host/<wwn>) and whose Read needs nothing else.
var (
	NewBeegfsClientList     = nodeServiceList(NewBeegfsClientResource, "BeeGFS clients", exactOwner("beegfs-client"))
	NewBeegfsHAServicesList = nodeServiceList(NewBeegfsHAServicesResource, "BeeGFS HA service sets", exactOwner("beegfs-ha"))
	NewBeegfsManagementList = nodeServiceList(NewBeegfsManagementResource, "BeeGFS management services", exactOwner("beegfs-mgmtd"))
	NewBeegfsMetadataList   = nodeServiceList(NewBeegfsMetadataResource, "BeeGFS metadata services", exactOwner("beegfs-meta"))
	NewBeegfsStorageList    = nodeServiceList(NewBeegfsStorageResource, "BeeGFS storage services", exactOwner("beegfs-storage"))
	NewBeegfsTargetList     = nodeServiceList(NewBeegfsTargetResource, "BeeGFS targets", prefixOwner("beegfs-target-", false))
	NewMultipathList        = nodeServiceList(NewMultipathResource, "multipath configurations", exactOwner("multipath"))
	NewHALVMList            = nodeServiceList(NewHALVMResource, "HA-LVM volume groups", prefixOwner("ha-lvm-", true))
	NewNFSServerList        = nodeServiceList(NewNFSServerResource, "NFS server settings", exactOwner("nfs-server"))
)
