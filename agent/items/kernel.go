package items

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/hpcstorage/terraform-provider-hpcstorage/agent/protocol"
)

type blockQueueItem struct {
	id string
	b  *protocol.BlockQueue
}

func (i *blockQueueItem) ID() string { return i.id }

// BlockQueueRule is the owner's generated udev rule for block_queue items.
func BlockQueueRule(owner string) string {
	return "/etc/udev/rules.d/61-hpcstorage-" + owner + "-block.rules"
}

// Disk is a block device as the agent sees it under sys/block.
type Disk struct {
	Name       string
	WWID       string // as in device/wwid ("naa.600c...")
	Model      string
	Vendor     string
	Rotational bool
	SizeBytes  int64
	Scheduler  string
	Schedulers []string
}

// ListDisks reads sys/block (shared with facts).
func ListDisks(root Reader) ([]Disk, error) {
	ents, err := root.ReadDir("/sys/block")
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []Disk
	for _, e := range ents {
		n := e.Name()
		b := "/sys/block/" + n
		d := Disk{Name: n}
		read := func(rel string) string {
			v, _ := readKernel(root, b+"/"+rel)
			return strings.TrimSpace(v)
		}
		d.WWID = read("device/wwid")
		if d.WWID == "" {
			d.WWID = read("wwid")
		}
		d.Model = read("device/model")
		d.Vendor = read("device/vendor")
		d.Rotational = read("queue/rotational") == "1"
		if sectors, err := strconv.ParseInt(read("size"), 10, 64); err == nil {
			d.SizeBytes = sectors * 512
		}
		sched := read("queue/scheduler")
		d.Scheduler = selected(sched)
		d.Schedulers = choices(sched)
		out = append(out, d)
	}
	return out, nil
}

// WWN returns "0x<hex>" for NAA ids, else "".
func (d Disk) WWN() string {
	if strings.HasPrefix(d.WWID, "naa.") {
		return "0x" + strings.ToLower(strings.TrimPrefix(d.WWID, "naa."))
	}
	return ""
}

func normWWN(s string) string {
	s = strings.ToLower(strings.TrimSpace(s))
	for _, p := range []string{"0x", "naa.", "eui."} {
		s = strings.TrimPrefix(s, p)
	}
	return s
}

// virtual devices are skipped unless the name glob asks for them.
var virtualDisks = []string{"loop*", "ram*", "zram*", "sr*", "fd*"}

func (m matcher) matches(d Disk) bool {
	if m.Name != "" {
		if ok, _ := path.Match(m.Name, d.Name); !ok {
			return false
		}
	} else {
		for _, v := range virtualDisks {
			if ok, _ := path.Match(v, d.Name); ok {
				return false
			}
		}
	}
	if m.WWN != "" && normWWN(m.WWN) != normWWN(d.WWID) {
		return false
	}
	if m.Model != "" {
		if ok, _ := path.Match(m.Model, d.Model); !ok {
			return false
		}
	}
	if m.Rotational != nil && *m.Rotational != d.Rotational {
		return false
	}
	return true
}

type matcher protocol.DiskMatch

// queueAttr is one tunable in apply order: the scheduler first, because
// switching it resets nr_requests.
type queueAttr struct {
	name  string
	value string
}

func (i *blockQueueItem) attrs() []queueAttr {
	var out []queueAttr
	if i.b.Scheduler != "" {
		out = append(out, queueAttr{"scheduler", i.b.Scheduler})
	}
	add := func(name string, v *int) {
		if v != nil {
			out = append(out, queueAttr{name, strconv.Itoa(*v)})
		}
	}
	add("nr_requests", i.b.NrRequests)
	add("read_ahead_kb", i.b.ReadAheadKB)
	add("max_sectors_kb", i.b.MaxSectorsKB)
	return out
}

// schedulerAliases maps single-queue names to their blk-mq successors.
var schedulerAliases = map[string]string{"deadline": "mq-deadline", "noop": "none", "cfq": "bfq"}

// candidates lists the disks a match selects, reading only the attributes
// the match needs (a no-op run should not read every disk's every file).
func candidates(root Reader, m matcher) ([]Disk, error) {
	ents, err := root.ReadDir("/sys/block")
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []Disk
	for _, e := range ents {
		d := Disk{Name: e.Name()}
		b := "/sys/block/" + d.Name + "/"
		read := func(rel string) string {
			v, _ := readKernel(root, b+rel)
			return strings.TrimSpace(v)
		}
		// Cheap name test first, with placeholders that cannot fail the
		// other fields' tests.
		probe := matcher{Name: m.Name}
		if !probe.matches(d) {
			continue
		}
		if m.WWN != "" {
			if d.WWID = read("device/wwid"); d.WWID == "" {
				d.WWID = read("wwid")
			}
		}
		if m.Model != "" {
			d.Model = read("device/model")
		}
		if m.Rotational != nil {
			d.Rotational = read("queue/rotational") == "1"
		}
		if !m.matches(d) {
			continue
		}
		out = append(out, d)
	}
	return out, nil
}

func (i *blockQueueItem) Plan(_ context.Context, env *Env) (Plan, error) {
	var plan Plan
	m := matcher(i.b.Match)
	disks, err := candidates(env.fs(), m)
	if err != nil {
		return plan, err
	}
	matched := 0
	for _, d := range disks {
		if i.b.Scheduler != "" {
			sched, _ := readKernel(env.fs(), "/sys/block/"+d.Name+"/queue/scheduler")
			d.Schedulers = choices(sched)
		}
		matched++
		for _, a := range i.attrs() {
			p := "/sys/block/" + d.Name + "/queue/" + a.name
			key := "sysfs:" + p
			plan.Claims = append(plan.Claims, key)
			if a.name == "scheduler" && !slices.Contains(d.Schedulers, a.value) {
				msg := fmt.Sprintf("scheduler %q is not offered by %s (it offers: %s)", a.value, d.Name, strings.Join(d.Schedulers, " "))
				if alt, ok := schedulerAliases[a.value]; ok && slices.Contains(d.Schedulers, alt) {
					msg += fmt.Sprintf("; this is a multi-queue (blk-mq) kernel: use %q", alt)
				}
				return plan, fmt.Errorf("%s: %w", msg, ErrUnsupported)
			}
			if a.name == "max_sectors_kb" {
				if hw, err := readKernel(env.fs(), "/sys/block/"+d.Name+"/queue/max_hw_sectors_kb"); err == nil {
					if h, _ := strconv.Atoi(strings.TrimSpace(hw)); h > 0 && *i.b.MaxSectorsKB > h {
						return plan, fmt.Errorf("max_sectors_kb %d is above %s's hardware limit max_hw_sectors_kb %d: %w",
							*i.b.MaxSectorsKB, d.Name, h, ErrUnsupported)
					}
				}
			}
			step, err := kernelStep(env, key, p, d.Name+" queue/"+a.name, a.value, a.name == "scheduler")
			if err != nil {
				return plan, err
			}
			if step != nil {
				plan.Steps = append(plan.Steps, *step)
			}
		}
	}
	if matched == 0 {
		plan.Warnings = append(plan.Warnings, "matched no block device now; the udev rule applies the settings to matching disks that appear later")
	}
	fileKey, steps, err := sharedFileSteps(env, BlockQueueRule(env.Owner), blockQueueRuleContent,
		firstOfKind(env.Spec, "block_queue", i.id))
	if err != nil {
		return plan, err
	}
	if len(steps) > 0 {
		// The values are already live; the trigger makes udev apply the
		// new rule to present disks too, so udev and sysfs agree.
		steps = append(steps, udevReload(env, []string{"udevadm", "trigger", "--action=change", "--subsystem-match=block"}))
	}
	plan.Steps = append(plan.Steps, steps...)
	plan.Claims = append(plan.Claims, fileKey)
	return plan, nil
}

// blockQueueRuleContent renders one udev rule line per block_queue item.
func blockQueueRuleContent(spec *protocol.Spec) []byte {
	var b strings.Builder
	fmt.Fprintf(&b, "# Managed by hpcstorage-agent for owner %s; local edits are overwritten.\n", spec.Owner)
	for _, it := range spec.Items {
		q := it.BlockQueue
		if q == nil {
			continue
		}
		conds := []string{`ACTION=="add|change"`, `SUBSYSTEM=="block"`, `ENV{DEVTYPE}=="disk"`}
		if q.Match.Name != "" {
			conds = append(conds, fmt.Sprintf(`KERNEL=="%s"`, q.Match.Name))
		}
		if q.Match.WWN != "" {
			conds = append(conds, fmt.Sprintf(`ATTRS{wwid}=="naa.%s"`, normWWN(q.Match.WWN)))
		}
		if q.Match.Model != "" {
			conds = append(conds, fmt.Sprintf(`ATTRS{model}=="%s"`, q.Match.Model))
		}
		if q.Match.Rotational != nil {
			v := "0"
			if *q.Match.Rotational {
				v = "1"
			}
			conds = append(conds, fmt.Sprintf(`ATTR{queue/rotational}=="%s"`, v))
		}
		for _, a := range (&blockQueueItem{b: q}).attrs() {
			conds = append(conds, fmt.Sprintf(`ATTR{queue/%s}="%s"`, a.name, a.value))
		}
		fmt.Fprintf(&b, "# %s\n%s\n", it.ID(), strings.Join(conds, ", "))
	}
	return []byte(b.String())
}

type thpItem struct {
	id string
	t  *protocol.THP
}

func (i *thpItem) ID() string { return i.id }

const thpDir = "/sys/kernel/mm/transparent_hugepage"

// THPTmpfiles is the owner's tmpfiles.d entry that sets THP at boot.
func THPTmpfiles(owner string) string { return "/etc/tmpfiles.d/hpcstorage-" + owner + "-thp.conf" }

func (i *thpItem) Plan(_ context.Context, env *Env) (Plan, error) {
	var plan Plan
	var conf strings.Builder
	fmt.Fprintf(&conf, "# Managed by hpcstorage-agent for owner %s; local edits are overwritten.\n", env.Owner)
	for _, a := range []queueAttr{{"enabled", i.t.Enabled}, {"defrag", i.t.Defrag}} {
		if a.value == "" {
			continue
		}
		p := thpDir + "/" + a.name
		raw, err := readKernel(env.fs(), p)
		if errors.Is(err, fs.ErrNotExist) {
			return plan, fmt.Errorf("%s: %w (kernel without transparent huge pages?)", p, ErrUnsupported)
		}
		if err != nil {
			return plan, err
		}
		if strings.Contains(raw, "[") && !slices.Contains(choices(raw), a.value) {
			return plan, fmt.Errorf("thp %s %q is not offered by this kernel (it offers: %s): %w",
				a.name, a.value, strings.Join(choices(raw), " "), ErrUnsupported)
		}
		key := "sysfs:" + p
		plan.Claims = append(plan.Claims, key)
		step, err := kernelStep(env, key, p, "transparent_hugepage/"+a.name, a.value, true)
		if err != nil {
			return plan, err
		}
		if step != nil {
			plan.Steps = append(plan.Steps, *step)
		}
		fmt.Fprintf(&conf, "w %s - - - - %s\n", p, a.value)
	}
	key, steps, err := fileSteps(env, THPTmpfiles(env.Owner), fileWant{Content: []byte(conf.String()), Mode: 0o644, HasMode: true, UID: -1, GID: -1})
	if err != nil {
		return plan, err
	}
	plan.Claims = append(plan.Claims, key)
	plan.Steps = append(plan.Steps, steps...)
	return plan, nil
}
