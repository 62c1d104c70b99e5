package redfishmock

import (
	"fmt"
	"sort"
	"strings"
)

// EndpointSpec describes one BMC or array of a design.
type EndpointSpec struct {
	Design      string      `json:"design"`
	Name        string      `json:"name"`
	Kind        Kind        `json:"kind"`
	Personality string      `json:"personality"`
	Model       string      `json:"model"`
	Vendor      string      `json:"vendor,omitempty"`
	Node        string      `json:"node,omitempty"`      // host name of the server a BMC manages
	CabledTo    []string    `json:"cabled_to,omitempty"` // servers (node names) an array is cabled to
	Server      *ServerSpec `json:"-"`
	Array       *ArraySpec  `json:"-"`
}

// ServerSpec is the hardware of a server.
type ServerSpec struct {
	CPUModel       string
	Sockets        int
	CoresPerSocket int
	CPUSpeedMHz    int
	DIMMs, DIMMGiB int
	DIMMSpeedMHz   int
	EthPorts       int
	EthSpeedGbps   int
	IBPorts        int
	IBSpeedGbps    int
	IBModel        string
	BootDrives     int
	BootDriveGB    int
	NVMeDrives     int
	NVMeBytes      int64
	NVMeModel      string
	BIOSVersion    string
	BIOS           map[string]any // initial current values overriding the registry defaults
}

// ArraySpec is the enclosures of an array, controller shelf first.
type ArraySpec struct {
	Enclosures []EnclosureSpec
}

// EnclosureSpec is one shelf of drives.
type EnclosureSpec struct {
	Model      string // ME4084, ME4024, ME484
	Slots      int
	Drawers    int // 0: no drawers
	MediaType  string
	DriveBytes int64
	DriveModel string
	Overrides  []DriveOverride
}

// DriveOverride puts a different drive in one slot.
type DriveOverride struct {
	Slot       int
	MediaType  string
	DriveBytes int64
	DriveModel string
}

const tb = int64(1000 * 1000 * 1000 * 1000)

func me4084(driveBytes int64) EnclosureSpec {
	return EnclosureSpec{Model: "ME4084", Slots: 84, Drawers: 2, MediaType: "HDD", DriveBytes: driveBytes, DriveModel: hddModel(driveBytes)}
}

func me484(driveBytes int64) EnclosureSpec {
	e := me4084(driveBytes)
	e.Model = "ME484"
	return e
}

func me4024(driveBytes int64) EnclosureSpec {
	return EnclosureSpec{Model: "ME4024", Slots: 24, MediaType: "SSD", DriveBytes: driveBytes, DriveModel: "KPM5XRUG960G"}
}

func hddModel(b int64) string {
	return fmt.Sprintf("ST%dNM0008", b/tb*1000)
}

func r640(node, p string) EndpointSpec {
	return EndpointSpec{Name: node + "-bmc", Node: node, Kind: KindServer, Personality: p, Model: "PowerEdge R640",
		Server: &ServerSpec{CPUModel: "Intel(R) Xeon(R) Gold 6230 CPU @ 2.10GHz", Sockets: 2, CoresPerSocket: 20, CPUSpeedMHz: 3900,
			DIMMs: 12, DIMMGiB: 16, DIMMSpeedMHz: 2933, EthPorts: 2, EthSpeedGbps: 10, IBPorts: 1, IBSpeedGbps: 100,
			IBModel: "ConnectX-6 HDR100", BootDrives: 2, BootDriveGB: 480, BIOSVersion: "2.10.2"}}
}

func r740(node, p string, ibGbps int) EndpointSpec {
	e := r640(node, p)
	e.Model = "PowerEdge R740"
	e.Server.DIMMs = 24
	e.Server.IBSpeedGbps = ibGbps
	if ibGbps == 100 {
		e.Server.IBModel = "ConnectX-6 HDR100"
	} else {
		e.Server.IBModel = "ConnectX-5 EDR"
	}
	return e
}

func arraySpec(name, model string, cabled []string, encl ...EnclosureSpec) EndpointSpec {
	return EndpointSpec{Name: name, Kind: KindArray, Personality: strings.ToLower(model), Model: model, Vendor: "Dell EMC",
		CabledTo: cabled, Array: &ArraySpec{Enclosures: encl}}
}

// Designs lists the reference designs the mock can seed.
func Designs() []string { return []string{"r1", "r2", "r3", "r4", "r5"} }

// designSpecs returns the endpoints of a reference design (see
// docs/redfish-mock.md for what each one models).
func designSpecs(name string, opts Options) ([]EndpointSpec, error) {
	hdd := func(def int64) int64 {
		if opts.DriveSizeBytes > 0 {
			return opts.DriveSizeBytes
		}
		return def
	}
	var eps []EndpointSpec
	switch strings.ToLower(name) {
	case "r1": // BeeGFS high capacity: mgmt, 2 metadata + ME4024, 2 storage + 4 x ME4084
		eps = append(eps, r640("mgmt", PersonalityDell),
			r740("meta1", PersonalityDell, 100), r740("meta2", PersonalityDell, 100),
			r740("stor1", PersonalityDell, 100), r740("stor2", PersonalityDell, 100),
			arraySpec("me4024-1", "ME4024", []string{"meta1", "meta2"}, me4024(960*1000*1000*1000)))
		for i := 1; i <= 4; i++ {
			eps = append(eps, arraySpec(fmt.Sprintf("me4084-%d", i), "ME4084", []string{"stor1", "stor2"}, me4084(hdd(12*tb))))
		}
	case "r2": // NFS HA: two NFS servers sharing one ME4084 over redundant SAS
		eps = append(eps, r740("nfs1", PersonalityDell, 100), r740("nfs2", PersonalityDell, 100),
			arraySpec("me4084-1", "ME4084", []string{"nfs1", "nfs2"}, me4084(hdd(10*tb))))
		eps[0].Server.IBModel, eps[1].Server.IBModel = "ConnectX-5 EDR", "ConnectX-5 EDR"
	case "r3": // BeeGFS building blocks: three blocks of two servers with generic BMCs
		for b := 1; b <= 3; b++ {
			for n := 1; n <= 2; n++ {
				e := r740(fmt.Sprintf("bb%d-node%d", b, n), PersonalityGeneric, 200)
				e.Model, e.Vendor = "ThinkSystem SR665", "Lenovo"
				e.Server.CPUModel, e.Server.CoresPerSocket, e.Server.IBModel = "AMD EPYC 7343 16-Core Processor", 16, "ConnectX-6 HDR"
				e.Server.IBPorts = 2
				eps = append(eps, e)
			}
		}
	case "r4": // Ceph: 3 monitors and 4 all-NVMe OSD nodes (Supermicro, generic Redfish)
		for i := 1; i <= 3; i++ {
			e := r640(fmt.Sprintf("mon%d", i), PersonalityGeneric)
			e.Model, e.Vendor = "AS-1114S-WN10RT", "Supermicro"
			e.Server.CPUModel, e.Server.Sockets, e.Server.CoresPerSocket, e.Server.IBPorts = "AMD EPYC 7313P 16-Core Processor", 1, 16, 0
			e.Server.EthSpeedGbps = 100
			eps = append(eps, e)
		}
		for i := 1; i <= 4; i++ {
			e := r640(fmt.Sprintf("osd%d", i), PersonalityGeneric)
			e.Model, e.Vendor = "AS-2124US-TNRP", "Supermicro"
			e.Server.CPUModel, e.Server.CoresPerSocket, e.Server.IBPorts = "AMD EPYC 7713 64-Core Processor", 64, 0
			e.Server.EthSpeedGbps, e.Server.DIMMs, e.Server.DIMMGiB = 100, 16, 32
			e.Server.NVMeDrives, e.Server.NVMeBytes, e.Server.NVMeModel = 22, 3840*1000*1000*1000, "KCM6XRUL3T84"
			eps = append(eps, e)
		}
	case "r5": // Spectrum Scale (PixStor): mgmt, NSD pair with 4 x (ME4084 + ME484), metadata ME4024, 2 gateways
		eps = append(eps, r640("mgmt", PersonalityDell),
			r740("nsd1", PersonalityDell, 100), r740("nsd2", PersonalityDell, 100),
			r740("gw1", PersonalityDell, 100), r740("gw2", PersonalityDell, 100))
		for i := 1; i <= 4; i++ {
			base := me4084(hdd(12 * tb))
			if i == 1 { // the base module keeps metadata on 4 x 1.92 TB SSD
				for slot := 80; slot < 84; slot++ {
					base.Overrides = append(base.Overrides, DriveOverride{Slot: slot, MediaType: "SSD", DriveBytes: 1920 * 1000 * 1000 * 1000, DriveModel: "KPM5XRUG1T92"})
				}
			}
			eps = append(eps, arraySpec(fmt.Sprintf("me4084-%d", i), "ME4084", []string{"nsd1", "nsd2"}, base, me484(hdd(12*tb))))
		}
		eps = append(eps, arraySpec("me4024-1", "ME4024", []string{"nsd1", "nsd2"}, me4024(960*1000*1000*1000)))
	default:
		return nil, fmt.Errorf("%w %q (known: %s)", ErrUnknownDesign, name, strings.Join(Designs(), ", "))
	}
	for i := range eps {
		eps[i].Design = strings.ToLower(name)
		if eps[i].Kind == KindServer && opts.ServerPersonality != "" {
			eps[i].Personality = opts.ServerPersonality
		}
	}
	return eps, nil
}

// Design is the set of endpoints of one reference design, sharing a clock.
type Design struct {
	Name     string
	services []*Service
}

// NewDesign builds every BMC and array of a reference design ("r1".."r5").
func NewDesign(name string, opts Options) (*Design, error) {
	opts = opts.withDefaults()
	switch opts.ServerPersonality {
	case "", PersonalityDell, PersonalityHPE, PersonalityGeneric:
	default:
		return nil, fmt.Errorf("server personality %q: want dell, hpe or generic", opts.ServerPersonality)
	}
	specs, err := designSpecs(name, opts)
	if err != nil {
		return nil, err
	}
	d := &Design{Name: strings.ToLower(name)}
	for _, sp := range specs {
		d.services = append(d.services, newService(sp, opts))
	}
	return d, nil
}

// Services returns the design's endpoints in a stable order (servers, then
// arrays, as the design lists them).
func (d *Design) Services() []*Service { return append([]*Service(nil), d.services...) }

// Service returns the endpoint with this name.
func (d *Design) Service(name string) (*Service, error) {
	for _, s := range d.services {
		if s.spec.Name == name {
			return s, nil
		}
	}
	return nil, fmt.Errorf("%w %q in design %s", ErrUnknownEndpoint, name, d.Name)
}

// OnMapping registers fn on every array of the design.
func (d *Design) OnMapping(fn func(MappingEvent)) {
	for _, s := range d.services {
		if s.spec.Kind == KindArray {
			s.OnMapping(fn)
		}
	}
}

// OnPower registers fn on every server of the design.
func (d *Design) OnPower(fn func(PowerEvent)) {
	for _, s := range d.services {
		if s.spec.Kind == KindServer {
			s.OnPower(fn)
		}
	}
}

// Cabling maps each array to the servers it is cabled to.
func (d *Design) Cabling() map[string][]string {
	out := map[string][]string{}
	for _, s := range d.services {
		if s.spec.Kind == KindArray {
			out[s.spec.Name] = append([]string(nil), s.spec.CabledTo...)
		}
	}
	return out
}

// Reset puts every endpoint back to its seed state.
func (d *Design) Reset() error {
	for _, s := range d.services {
		if err := s.Reset(); err != nil {
			return err
		}
	}
	return nil
}

// NewService builds one endpoint of a named design on its own.
func NewService(design, endpoint string, opts Options) (*Service, error) {
	opts = opts.withDefaults()
	specs, err := designSpecs(design, opts)
	if err != nil {
		return nil, err
	}
	for _, sp := range specs {
		if sp.Name == endpoint {
			return newService(sp, opts), nil
		}
	}
	return nil, fmt.Errorf("%w %q in design %s", ErrUnknownEndpoint, endpoint, design)
}

func newService(sp EndpointSpec, opts Options) *Service {
	s := &Service{spec: sp, opts: opts, clock: opts.Clock, password: opts.Password}
	if s.password == "" {
		s.password = randomHex(12)
	}
	s.reseed()
	return s
}

// reseed rebuilds all state from the spec; the caller holds mu or owns s.
func (s *Service) reseed() {
	s.docs = map[string]*doc{}
	s.routes = nil
	s.aliases = nil
	s.timers = nil
	s.sys, s.arr = nil, nil
	s.taskSeq, s.sessionSeq = 0, 0
	s.stats = map[string]int{}
	s.events, s.outbox = nil, nil
	switch s.spec.Kind {
	case KindServer:
		s.seedServer()
	case KindArray:
		s.seedArray()
	}
}

// Reset drops every change, session, fault and counter: the endpoint is as
// freshly seeded (credentials and mapping listeners are kept).
func (s *Service) Reset() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.replay {
		return s.loadMockup()
	}
	s.faults = nil
	s.reseed()
	return nil
}

// Seed replaces this endpoint by endpoint of a named design (same URL and
// credentials), e.g. to switch a lab BMC from R1 to R2 hardware.
func (s *Service) Seed(design, endpoint string) error {
	specs, err := designSpecs(design, s.opts)
	if err != nil {
		return err
	}
	var names []string
	for _, sp := range specs {
		names = append(names, sp.Name)
		if sp.Name == endpoint {
			s.mu.Lock()
			s.spec = sp
			s.replay = false
			s.faults = nil
			s.reseed()
			s.mu.Unlock()
			return nil
		}
	}
	sort.Strings(names)
	return fmt.Errorf("%w %q in design %s (endpoints: %s)", ErrUnknownEndpoint, endpoint, design, strings.Join(names, ", "))
}
