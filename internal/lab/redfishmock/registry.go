package redfishmock

import (
	"fmt"
	"net/http"
	"strconv"
)

// Server personalities.
const (
	PersonalityDell    = "dell"
	PersonalityHPE     = "hpe"
	PersonalityGeneric = "generic"
)

// attrDef is one entry of a BIOS attribute registry.
type attrDef struct {
	name     string
	typ      string // Enumeration, Integer, String, Boolean
	values   []string
	readOnly bool
	lower    int64
	upper    int64
	maxLen   int
	def      any
	display  string
}

func enum(name, display, def string, values ...string) attrDef {
	return attrDef{name: name, typ: "Enumeration", values: values, def: def, display: display}
}

func (a attrDef) ro() attrDef { a.readOnly = true; return a }

var onOff = []string{"Enabled", "Disabled"}

// biosRegistry is the per-personality attribute registry: the attributes
// the reference designs tune (system profile, sub-NUMA clustering, logical
// processors, ADDDC) under each vendor's real names, plus a few neighbours
// of each type so type checks are exercised.
type biosRegistry struct {
	id, owner  string
	attrs      []attrDef
	htAttr     string // hyper-threading switch: decides LogicalProcessorCount
	sncAttr    string // sub-NUMA clustering switch: decides NUMA node count
	adddcAttr  string
	profileKey string
}

func registryFor(personality string) biosRegistry {
	switch personality {
	case PersonalityDell:
		return biosRegistry{id: "BiosAttributeRegistry.v1_0_3", owner: "Dell", htAttr: "LogicalProc", sncAttr: "SubNumaCluster",
			adddcAttr: "AdddcSetting", profileKey: "SysProfile", attrs: []attrDef{
				enum("SysProfile", "System Profile", "PerfPerWattOptimizedDapc", "PerfPerWattOptimizedDapc", "PerfPerWattOptimizedOs", "PerfOptimized", "PerfWorkStationOptimized", "Custom"),
				enum("WorkloadProfile", "Workload Profile", "NotConfigured", "NotConfigured", "HpcProfile", "LowLatencyOptimizedProfile", "VtOptimizedProfile", "DbOptimizedProfile", "SdsOptimizedProfile"),
				enum("SubNumaCluster", "Sub NUMA Cluster", "Disabled", onOff...),
				enum("LogicalProc", "Logical Processor", "Enabled", onOff...),
				enum("AdddcSetting", "ADDDC Setting", "Enabled", onOff...),
				enum("NodeInterleave", "Node Interleaving", "Disabled", onOff...),
				enum("MemOpMode", "Memory Operating Mode", "OptimizerMode", "OptimizerMode", "SpareMode", "MirrorMode", "AdvEccMode", "FaultResilientMode"),
				enum("ProcVirtualization", "Virtualization Technology", "Enabled", onOff...),
				enum("SriovGlobalEnable", "SR-IOV Global Enable", "Disabled", onOff...),
				enum("BootMode", "Boot Mode", "Uefi", "Bios", "Uefi"),
				enum("ProcTurboMode", "Turbo Boost", "Enabled", onOff...).ro(),
				enum("ProcCStates", "C States", "Disabled", "Enabled", "Disabled", "Autonomous").ro(),
				{name: "AcPwrRcvryUserDelay", typ: "Integer", lower: 60, upper: 600, def: int64(60), display: "User Defined Delay (60s to 600s)"},
				{name: "AssetTag", typ: "String", maxLen: 63, def: "", display: "Asset Tag"},
				{name: "Proc1NumCores", typ: "Integer", lower: 0, upper: 65535, def: int64(0), readOnly: true, display: "Number of Cores"},
			}}
	case PersonalityHPE:
		return biosRegistry{id: "BiosAttributeRegistryU30.v1_2_68", owner: "HPE", htAttr: "ProcHyperthreading", sncAttr: "SubNumaClustering",
			adddcAttr: "AdvancedMemProtection", profileKey: "WorkloadProfile", attrs: []attrDef{
				enum("WorkloadProfile", "Workload Profile", "GeneralPowerEfficientCompute", "GeneralPowerEfficientCompute", "GeneralPeakFrequencyCompute",
					"GeneralThroughputCompute", "Virtualization-PowerEfficient", "Virtualization-MaxPerformance", "LowLatency", "MissionCritical",
					"TransactionalApplicationProcessing", "HighPerformanceCompute", "DecisionSupport", "GraphicProcessing", "I/OThroughput", "Custom"),
				enum("SubNumaClustering", "Sub-NUMA Clustering", "Disabled", onOff...),
				enum("ProcHyperthreading", "Intel(R) Hyperthreading", "Enabled", onOff...),
				enum("AdvancedMemProtection", "Advanced Memory Protection", "FastFaultTolerantADDDC", "AdvancedEcc", "OnlineSpareAdvancedEcc", "MirroredAdvancedEcc", "FastFaultTolerantADDDC"),
				enum("NodeInterleaving", "Node Interleaving", "Disabled", onOff...),
				enum("ProcTurbo", "Intel(R) Turbo Boost Technology", "Enabled", onOff...),
				enum("ProcVirtualization", "Intel(R) Virtualization Technology", "Enabled", onOff...),
				enum("BootMode", "Boot Mode", "Uefi", "Uefi", "LegacyBios"),
				{name: "ProcCoreDisable", typ: "Integer", lower: 0, upper: 64, def: int64(0), display: "Processor Core Disable"},
				{name: "ServerAssetTag", typ: "String", maxLen: 31, def: "", display: "Server Asset Tag"},
				{name: "SerialNumber", typ: "String", maxLen: 16, def: "", readOnly: true, display: "Serial Number"},
			}}
	default:
		return biosRegistry{id: "BiosAttributeRegistryG1.v1_0_0", owner: "Contoso", htAttr: "ProcHyperthreading", sncAttr: "SubNumaClustering",
			adddcAttr: "MemoryADDDC", profileKey: "PowerProfile", attrs: []attrDef{
				enum("PowerProfile", "Power Profile", "Balanced", "Balanced", "MaxPerformance", "PowerSaving", "Custom"),
				enum("SubNumaClustering", "Sub-NUMA Clustering", "Disabled", onOff...),
				enum("ProcHyperthreading", "Hyper-Threading", "Enabled", onOff...),
				enum("MemoryADDDC", "Adaptive Double DRAM Device Correction", "Enabled", onOff...),
				enum("ProcTurboMode", "Turbo Mode", "Enabled", onOff...),
				enum("BootMode", "Boot Mode", "Uefi", "Uefi", "LegacyBios"),
				{name: "ProcCoreDisable", typ: "Integer", lower: 0, upper: 64, def: int64(0), display: "Disabled cores"},
				{name: "AdminPhone", typ: "String", maxLen: 32, def: "", display: "Administrator phone"},
				{name: "EmbeddedSata", typ: "Enumeration", values: []string{"Raid", "Ahci"}, def: "Ahci", readOnly: true, display: "Embedded SATA"},
			}}
	}
}

func (r biosRegistry) find(name string) (attrDef, bool) {
	for _, a := range r.attrs {
		if a.name == name {
			return a, true
		}
	}
	return attrDef{}, false
}

func (r biosRegistry) defaults() map[string]any {
	out := map[string]any{}
	for _, a := range r.attrs {
		out[a.name] = a.def
	}
	return out
}

// check validates one requested attribute value against the registry.
func (r biosRegistry) check(errs *errorList, name string, v any) {
	a, found := r.find(name)
	if !found {
		errs.add(http.StatusBadRequest, "PropertyUnknown", name)
		return
	}
	if a.readOnly {
		errs.add(http.StatusBadRequest, "PropertyNotWritable", name)
		return
	}
	shown := fmt.Sprint(v)
	switch a.typ {
	case "Enumeration":
		sv, isStr := v.(string)
		if !isStr {
			errs.add(http.StatusBadRequest, "PropertyValueTypeError", shown, name)
			return
		}
		for _, allowed := range a.values {
			if sv == allowed {
				return
			}
		}
		errs.add(http.StatusBadRequest, "PropertyValueNotInList", sv, name)
	case "Integer":
		n, isInt := asInt(v)
		if !isInt {
			errs.add(http.StatusBadRequest, "PropertyValueTypeError", shown, name)
			return
		}
		if n < a.lower || n > a.upper {
			errs.add(http.StatusBadRequest, "PropertyValueOutOfRange", strconv.FormatInt(n, 10), name)
		}
	case "String":
		sv, isStr := v.(string)
		if !isStr {
			errs.add(http.StatusBadRequest, "PropertyValueTypeError", shown, name)
			return
		}
		if a.maxLen > 0 && len(sv) > a.maxLen {
			errs.add(http.StatusBadRequest, "PropertyValueOutOfRange", sv, name)
		}
	case "Boolean":
		if _, isBool := v.(bool); !isBool {
			errs.add(http.StatusBadRequest, "PropertyValueTypeError", shown, name)
		}
	}
}

// document renders the registry in the AttributeRegistry schema.
func (r biosRegistry) document(path string) obj {
	attrs := make([]any, 0, len(r.attrs))
	for i, a := range r.attrs {
		e := obj{"AttributeName": a.name, "Type": a.typ, "ReadOnly": a.readOnly, "DisplayName": a.display,
			"DisplayOrder": i + 1, "ResetRequired": true, "DefaultValue": a.def}
		switch a.typ {
		case "Enumeration":
			vals := make([]any, len(a.values))
			for j, v := range a.values {
				vals[j] = obj{"ValueName": v, "ValueDisplayName": v}
			}
			e["Value"] = vals
		case "Integer":
			e["LowerBound"], e["UpperBound"] = a.lower, a.upper
		case "String":
			e["MaxLength"], e["MinLength"] = a.maxLen, 0
		}
		attrs = append(attrs, e)
	}
	return obj{
		"@odata.id":       path,
		"@odata.type":     "#AttributeRegistry.v1_4_0.AttributeRegistry",
		"Id":              r.id,
		"Name":            "BIOS Attribute Registry",
		"Language":        "en",
		"OwningEntity":    r.owner,
		"RegistryVersion": "1.0.0",
		"RegistryEntries": obj{"Attributes": attrs},
	}
}
