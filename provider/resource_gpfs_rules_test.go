package provider

import (
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
)

// gpfsR5Config is a valid R5 configuration (cluster, NSDs, file system,
// gateways) with edits applied as string replacements.
func gpfsR5Config(edits ...string) string {
	c := `
provider "hpcstorage" {}

resource "hpcstorage_gpfs_cluster" "r5" {
  host = "127.0.0.1:1"
  name = "r5"
  nodes = {
    nsd1 = ["quorum", "manager", "nsd_server"]
    nsd2 = ["quorum", "manager", "nsd_server"]
    mgmt = ["quorum"]
    gw1  = ["gateway"]
    gw2  = ["gateway"]
  }
  node_classes = { nsdServers = ["nsd1", "nsd2"] }
  config = {
    all      = { maxblocksize = "8M", cesSharedRoot = "/gpfs/fs1/.ces" }
    nsdServers = { pagepool = "16G" }
  }
}

resource "hpcstorage_gpfs_nsds" "r5" {
  host          = "127.0.0.1:1"
  name          = "r5"
  cluster_nodes = hpcstorage_gpfs_cluster.r5.node_names
  nsds = [
    { name = "a1_md01", wwn = "600c0ff000d4e1c00000000000000001", servers = ["nsd1", "nsd2"], usage = "metadataOnly", pool = "system" },
    { name = "a1_d01", wwn = "600c0ff000d4e1c00000000000000002", servers = ["nsd1", "nsd2"], usage = "dataOnly", pool = "data" },
    { name = "a1_d02", wwn = "600c0ff000d4e1c00000000000000003", servers = ["nsd1", "nsd2"], usage = "dataOnly", pool = "data" },
  ]
}

resource "hpcstorage_gpfs_filesystem" "fs1" {
  host           = "127.0.0.1:1"
  device         = "fs1"
  mount_point    = "/gpfs/fs1"
  max_block_size = hpcstorage_gpfs_cluster.r5.max_block_size
  max_metadata_replicas = 1
  max_data_replicas     = 1
  disks = [for n in hpcstorage_gpfs_nsds.r5.nsds : { nsd = n.name, usage = n.usage, failure_group = 1, pool = n.pool }]
  pools = [{ name = "data", block_size = "8M" }]
  placement_policy = "RULE 'default' SET POOL 'data'"
}

resource "hpcstorage_gpfs_gateways" "r5" {
  host       = "127.0.0.1:1"
  name       = "r5"
  filesystem = hpcstorage_gpfs_filesystem.fs1.id
  nodes      = ["gw1", "gw2"]
  services   = ["NFS", "SMB"]
  exports    = [{ path = "/gpfs/fs1", clients = [{ spec = "10.20.0.0/16", options = "Access_Type=RW,Squash=root_squash" }] }]
}
`
	for i := 0; i+1 < len(edits); i += 2 {
		if !strings.Contains(c, edits[i]) {
			panic("gpfsR5Config: no " + edits[i])
		}
		c = strings.Replace(c, edits[i], edits[i+1], 1)
	}
	return c
}

// TestGpfsPlan: the R5 configuration plans without reaching a node, with
// the values the file system depends on known at plan time (maxblocksize,
// node names, the mmcrfs argv, servers alternating in the stanzas).
func TestGpfsPlan(t *testing.T) {
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: gpfsR5Config(), PlanOnly: true, ExpectNonEmptyPlan: true,
			ConfigPlanChecks: resource.ConfigPlanChecks{PostApplyPreRefresh: []plancheck.PlanCheck{
				plancheck.ExpectKnownValue("hpcstorage_gpfs_cluster.r5", tfjsonpath.New("max_block_size"), knownvalue.StringExact("8M")),
				plancheck.ExpectKnownValue("hpcstorage_gpfs_cluster.r5", tfjsonpath.New("node_names"), knownvalue.ListExact([]knownvalue.Check{
					knownvalue.StringExact("gw1"), knownvalue.StringExact("gw2"), knownvalue.StringExact("mgmt"),
					knownvalue.StringExact("nsd1"), knownvalue.StringExact("nsd2")})),
				plancheck.ExpectKnownValue("hpcstorage_gpfs_nsds.r5", tfjsonpath.New("stanzas"), knownvalue.StringExact(
					"%nsd: device=/dev/disk/by-id/wwn-0x600c0ff000d4e1c00000000000000001 nsd=a1_md01 servers=nsd1,nsd2 usage=metadataOnly failureGroup=1 pool=system\n"+
						"%nsd: device=/dev/disk/by-id/wwn-0x600c0ff000d4e1c00000000000000002 nsd=a1_d01 servers=nsd2,nsd1 usage=dataOnly failureGroup=1 pool=data\n"+
						"%nsd: device=/dev/disk/by-id/wwn-0x600c0ff000d4e1c00000000000000003 nsd=a1_d02 servers=nsd1,nsd2 usage=dataOnly failureGroup=1 pool=data\n")),
				plancheck.ExpectKnownValue("hpcstorage_gpfs_filesystem.fs1", tfjsonpath.New("mmcrfs_command"), knownvalue.ListExact(stringChecks(
					"mmcrfs", "fs1", "-F", "/var/lib/hpcstorage/gpfs/fs-fs1/mmcrfs.stanza", "-B", "8M", "-j", "scatter", "-m", "1", "-M", "1",
					"-r", "1", "-R", "1", "-n", "32", "-T", "/gpfs/fs1", "-A", "yes"))),
			}},
		}},
	})
}

func stringChecks(s ...string) []knownvalue.Check {
	out := make([]knownvalue.Check, len(s))
	for i, v := range s {
		out[i] = knownvalue.StringExact(v)
	}
	return out
}

// TestGpfsPlanRules: each plan-time rule fails the plan with an error
// naming its attribute, before anything reaches a node.
func TestGpfsPlanRules(t *testing.T) {
	for _, tc := range []struct {
		name  string
		edits []string
		want  string
	}{
		{"block size above maxblocksize", []string{`maxblocksize = "8M"`, `maxblocksize = "4M"`},
			`(?s)Attribute block_size.*above the cluster's maxblocksize 4M.*6027-1084`},
		{"NSD names not unique", []string{`name = "a1_d02"`, `name = "a1_d01"`}, `(?s)nsds\[2\]\.name.*not unique`},
		{"more than 8 servers", []string{`servers = ["nsd1", "nsd2"], usage = "metadataOnly"`,
			`servers = ["nsd1", "nsd2", "gw1", "gw2", "mgmt", "n6", "n7", "n8", "n9"], usage = "metadataOnly"`}, `(?s)nsds\[0\]\.servers.*at most 8`},
		{"server not a cluster node", []string{`servers = ["nsd1", "nsd2"], usage = "dataOnly", pool = "data" },
    { name = "a1_d02"`, `servers = ["nsd1", "nsd3"], usage = "dataOnly", pool = "data" },
    { name = "a1_d02"`}, `(?s)nsds\[1\]\.servers.*nsd3 of NSD a1_d01 is not a node of the cluster`},
		{"usage word", []string{`usage = "metadataOnly"`, `usage = "metadataonly"`}, `(?s)nsds\[0\]\.usage.*did you mean "metadataOnly"`},
		{"m above M", []string{`max_metadata_replicas = 1`, "max_metadata_replicas = 1\n  metadata_replicas = 2"},
			`(?s)Attribute metadata_replicas.*more than the maximum`},
		{"R above 3", []string{`max_data_replicas     = 1`, `max_data_replicas     = 4`}, `(?s)Attribute max_data_replicas.*want 1 to 3`},
		{"replicas above failure groups", []string{`max_data_replicas     = 1`, "max_data_replicas = 2\n  data_replicas = 2"},
			`(?s)Attribute data_replicas.*failure groups.*they have 1`},
		{"data pool without a policy", []string{`placement_policy = "RULE 'default' SET POOL 'data'"`, ``},
			`(?s)Attribute placement_policy.*data goes to pool`},
		{"wrongly cased config key", []string{`pagepool = "16G"`, `pagePool = "16G"`},
			`(?s)config\["nsdServers"\]\["pagePool"\].*case-sensitive, write "pagepool"`},
		{"misspelt config key", []string{`pagepool = "16G"`, `workerThread = "512"`},
			`(?s)config\["nsdServers"\]\["workerThread"\].*did you mean "workerThreads"`},
		{"unknown role", []string{`gw1  = ["gateway"]`, `gw1  = ["gatway"]`}, `(?s)nodes\["gw1"\]\.roles.*did you mean "gateway"`},
		{"gateways without cesSharedRoot", []string{`, cesSharedRoot = "/gpfs/fs1/.ces"`, ``}, `(?s)config\["all"\].*need cesSharedRoot`},
		{"system node class", []string{`node_classes = { nsdServers = ["nsd1", "nsd2"] }`, `node_classes = { nsdNodes = ["nsd1", "nsd2"] }`},
			`(?s)node_classes\["nsdNodes"\].*GPFS defines itself`},
		{"export needs NFS", []string{`services   = ["NFS", "SMB"]`, `services   = ["SMB"]`}, `(?s)Attribute services.*NFS service`},
		{"metadata block size with metadata and data in system", []string{`usage = "metadataOnly"`, `usage = "dataAndMetadata"`,
			`max_metadata_replicas = 1`, "max_metadata_replicas = 1\n  metadata_block_size = \"2M\""},
			`(?s)Attribute metadata_block_size.*only when all its NSDs are metadataOnly`},
		{"metadata block size on 6.0", []string{`max_metadata_replicas = 1`, "max_metadata_replicas = 1\n  metadata_block_size = \"2M\"\n  version = \"6.0\""},
			`(?s)Attribute metadata_block_size.*6\.0's mmcrfs has no --metadata-block-size`},
		{"auto inode limit on 5.0.4", []string{`max_metadata_replicas = 1`, "max_metadata_replicas = 1\n  auto_inode_limit = true"},
			`(?s)Attribute auto_inode_limit.*5\.0\.4's mmcrfs has no --auto-inode-limit`},
		{"unknown version", []string{`max_metadata_replicas = 1`, "max_metadata_replicas = 1\n  version = \"5.3\""},
			`(?s)Attribute version.*5\.0\.4.*6\.0`},
		{"CES address not an address", []string{`services   = ["NFS", "SMB"]`, "services   = [\"NFS\", \"SMB\"]\n  ces_addresses = [\"10.10.0.0/24\"]"},
			`(?s)ces_addresses\[0\].*not an IP address`},
		{"SMB option misspelt", []string{`services   = ["NFS", "SMB"]`, "services   = [\"NFS\", \"SMB\"]\n  smb_exports = [{ name = \"fs1\", path = \"/gpfs/fs1\", options = { browsable = \"yes\" } }]"},
			`(?s)smb_exports\[0\]\.options.*did you mean "browseable"`},
		// Units and limits of mmchconfig values (issue 32).
		{"pagepool without a unit", []string{`pagepool = "16G"`, `pagepool = "16"`}, `(?s)config\["nsdServers"\]\["pagepool"\].*want at least 4M`},
		{"maxblocksize not a power of two", []string{`maxblocksize = "8M"`, `maxblocksize = "12M"`}, `(?s)config\["all"\]\["maxblocksize"\].*power of two`},
		{"maxblocksize above 16M", []string{`maxblocksize = "8M"`, `maxblocksize = "32M"`}, `(?s)config\["all"\]\["maxblocksize"\].*want 64K to 16M`},
		{"percentage out of range", []string{`pagepool = "16G"`, `pagepool = "16G", nsdbufspace = "80"`}, `(?s)config\["nsdServers"\]\["nsdbufspace"\].*want 10 to 70`},
		{"thread count with a unit", []string{`pagepool = "16G"`, `pagepool = "16G", workerThreads = "1K"`}, `(?s)config\["nsdServers"\]\["workerThreads"\].*whole number \(no unit\)`},
		{"boolean not yes or no", []string{`pagepool = "16G"`, `pagepool = "16G", numaMemoryInterleave = "true"`}, `(?s)config\["nsdServers"\]\["numaMemoryInterleave"\].*want yes or no`},
		{"enum word misspelt", []string{`pagepool = "16G"`, `pagepool = "16G", verbsRdma = "enabled"`}, `(?s)config\["nsdServers"\]\["verbsRdma"\].*did you mean "enable"`},
		{"min threads above max", []string{`pagepool = "16G"`, `pagepool = "16G", nsdMinWorkerThreads = "64", nsdMaxWorkerThreads = "32"`},
			`(?s)config\["nsdServers"\]\["nsdMinWorkerThreads"\].*above nsdMaxWorkerThreads=32`},
		// What a disk's usage allows in a pool.
		{"metadata NSD in a data pool", []string{`usage = "metadataOnly", pool = "system"`, `usage = "metadataOnly", pool = "data"`},
			`(?s)nsds\[0\]\.usage.*only the system pool holds metadata`},
		{"data and metadata disk in a data pool", []string{`disks = [for n in hpcstorage_gpfs_nsds.r5.nsds : { nsd = n.name, usage = n.usage, failure_group = 1, pool = n.pool }]`,
			`disks = [for n in hpcstorage_gpfs_nsds.r5.nsds : { nsd = n.name, usage = n.name == "a1_d01" ? "dataAndMetadata" : n.usage, failure_group = 1, pool = n.pool }]`},
			`(?s)disks\[1\]\.usage.*metadata lives in the system pool only`},
		// One volume per NSD.
		{"two NSDs on one volume", []string{`wwn = "600c0ff000d4e1c00000000000000003"`, `wwn = "600C0FF000D4E1C00000000000000002"`},
			`(?s)nsds\[2\]\.wwn.*volume 600c0ff000d4e1c00000000000000002 is already NSD a1_d01 \(nsds\[1\]\)`},
		{"two NSDs on one device", []string{`usage = "dataOnly", pool = "data" },
    { name = "a1_d02"`, `usage = "dataOnly", pool = "data", device = "/dev/mapper/x" },
    { name = "a1_d02", device = "/dev/mapper/x"`}, `(?s)nsds\[2\]\.device.*device /dev/mapper/x is already NSD a1_d01`},
		// Rules that need no WWN run while a volume is created in the same
		// apply (its WWN unknown at plan).
		{"duplicate name while a WWN is unknown", []string{`provider "hpcstorage" {}`, "provider \"hpcstorage\" {}\nresource \"terraform_data\" \"v\" {\n  input = \"600c0ff000d4e1c00000000000000009\"\n}",
			`wwn = "600c0ff000d4e1c00000000000000003"`, `wwn = terraform_data.v.output`, `name = "a1_d02"`, `name = "a1_d01"`}, `(?s)nsds\[2\]\.name.*not unique`},
		{"same volume twice while another WWN is unknown", []string{`provider "hpcstorage" {}`, "provider \"hpcstorage\" {}\nresource \"terraform_data\" \"v\" {\n  input = \"600c0ff000d4e1c00000000000000009\"\n}",
			`wwn = "600c0ff000d4e1c00000000000000003"`, `wwn = terraform_data.v.output`, `wwn = "600c0ff000d4e1c00000000000000002"`, `wwn = "600c0ff000d4e1c00000000000000001"`},
			`(?s)nsds\[1\]\.wwn.*is already NSD a1_md01`},
		{"data pool without a policy while maxblocksize is unknown", []string{`provider "hpcstorage" {}`,
			"provider \"hpcstorage\" {}\nresource \"terraform_data\" \"m\" {\n  input = \"8M\"\n}",
			`max_block_size = hpcstorage_gpfs_cluster.r5.max_block_size`, `max_block_size = terraform_data.m.output`,
			`placement_policy = "RULE 'default' SET POOL 'data'"`, ``}, `(?s)Attribute placement_policy.*data goes to pool`},
		{"SMB export needs SMB", []string{`services   = ["NFS", "SMB"]`, "services   = [\"NFS\"]\n  smb_exports = [{ name = \"fs1\", path = \"/gpfs/fs1\" }]"},
			`(?s)Attribute services.*smb_exports need the SMB service`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resource.UnitTest(t, resource.TestCase{
				ProtoV6ProviderFactories: protoV6ProviderFactories,
				Steps:                    []resource.TestStep{{Config: gpfsR5Config(tc.edits...), PlanOnly: true, ExpectError: regexp.MustCompile(strings.ReplaceAll(tc.want, " ", `\s+`))}},
			})
		})
	}
}
