package sim

// SMB exports of CES, after IBM Storage Scale 5.1's mmsmb:
//
//   - mmsmb export add EXPORTNAME PATH [--option "NAME=VALUE"]...
//     [--remark TEXT]: needs the SMB service enabled (mmces service enable
//     SMB); PATH absolute, inside a mounted GPFS file system and existing
//     (a directory below the mount point must exist on the node); an export
//     name that exists (names compare case-insensitively, as Windows
//     does), a name longer than 80 characters or holding one of
//     \ / : * ? " < > | or a control character, the reserved names
//     "global", "homes", "printers" and "ipc$", an option outside the
//     table of options mmsmb supports, or a yes/no option with another
//     value are refused.
//   - mmsmb export list [EXPORTNAME] [-Y] [--all]: one line per export;
//     the default columns are export, path, browseable, guest ok and smb
//     encrypt; --all adds every supported option. With -Y: a HEADER line
//     then one data line per export, fields percent-encoded.
//   - mmsmb export remove EXPORTNAME [--force]: refuses an unknown name.
//
// Not simulated: mmsmb export change, exportacl, config, the ACL
// semantics check (the lab's file systems have -k all, which allows
// NFSv4 ACLs). The -Y column names are not confirmed by a capture (a colon
// in an option name is percent-encoded in the HEADER line, as in values):
// parse them by header name.

import (
	"fmt"
	"path"
	"slices"
	"strings"
)

// smbOptions are the share options mmsmb export add accepts, with their
// defaults ("" for free-form options: user lists, comments).
var smbOptions = map[string]string{
	"access based share enum": "no", "admin users": "", "browseable": "yes", "comment": "",
	"csc policy": "manual", "gpfs:leases": "yes", "gpfs:recalls": "yes", "gpfs:sharemodes": "yes",
	"guest ok": "no", "hide dot files": "yes", "hide unreadable": "no", "invalid users": "",
	"oplocks": "yes", "posix locking": "no", "read list": "", "read only": "no",
	"smb encrypt": "auto", "valid users": "", "write list": "",
}

// smbEnums are the options with a fixed set of values.
var smbEnums = map[string][]string{
	"smb encrypt": {"auto", "default", "desired", "required", "disabled", "off", "enabled"},
	"csc policy":  {"manual", "disable", "documents", "programs"},
}

var smbDefaultColumns = []string{"browseable", "guest ok", "smb encrypt"}

func isSMBBool(name string) bool {
	d := smbOptions[name]
	return d == "yes" || d == "no"
}

func mmsmb(e *Env, args []string) int {
	return gpfsCmd(e, true, func(g *gpfsRun) int {
		var pos, opts []string
		set := map[string]bool{}
		for i := 0; i < len(args); i++ {
			switch a := args[i]; a {
			case "--option", "--remark":
				if i+1 >= len(args) {
					return g.fail("Missing argument after %s option.", a)
				}
				if a == "--option" {
					opts = append(opts, args[i+1])
				}
				i++
			case "-Y", "--all", "--force":
				set[a] = true
			default:
				if strings.HasPrefix(a, "-") {
					return g.fail("Invalid option %s.", a)
				}
				pos = append(pos, a)
			}
		}
		if len(pos) < 2 || pos[0] != "export" {
			return g.fail("6027-1268 Missing arguments: mmsmb export add|list|remove ...")
		}
		if !slices.Contains(g.st.CES.Services, "SMB") {
			return g.fail("The SMB service is not enabled: run mmces service enable SMB.")
		}
		find := func(name string) int {
			return slices.IndexFunc(g.st.Shares, func(s *gpfsShare) bool { return strings.EqualFold(s.Name, name) })
		}
		switch pos[1] {
		case "add":
			if len(pos) != 4 {
				return g.fail("6027-1268 Missing arguments: mmsmb export add EXPORTNAME PATH.")
			}
			name, p := pos[2], path.Clean(pos[3])
			if err := smbNameOK(name); err != nil {
				return g.fail("%v", err)
			}
			if find(name) >= 0 {
				return g.fail("The SMB export %s already exists.", name)
			}
			if _, err := g.exportPath(e, pos[3]); err != nil {
				return g.fail("%v", err)
			}
			sh := &gpfsShare{Name: name, Path: p, Options: map[string]string{}}
			for _, o := range opts {
				k, v, ok := strings.Cut(o, "=")
				k, v = strings.ToLower(strings.TrimSpace(k)), strings.TrimSpace(v)
				if _, known := smbOptions[k]; !ok || !known {
					return g.fail("Unsupported SMB option %q: mmsmb export add accepts %s.", o, strings.Join(sortedKeys(smbOptions), ", "))
				}
				if isSMBBool(k) {
					v = strings.ToLower(v)
					if v != "yes" && v != "no" {
						return g.fail("Incorrect value %s for SMB option %s (want yes or no).", v, k)
					}
				}
				if allowed, ok := smbEnums[k]; ok && !slices.Contains(allowed, strings.ToLower(v)) {
					return g.fail("Incorrect value %s for SMB option %s (want one of %s).", v, k, strings.Join(allowed, ", "))
				}
				sh.Options[k] = v
			}
			g.st.Shares = append(g.st.Shares, sh)
			g.dirty = true
			fmt.Fprintf(e.Stdout, "%s: The SMB export was created successfully.\n", e.tool)
		case "remove":
			if len(pos) != 3 {
				return g.fail("6027-1268 Missing arguments: mmsmb export remove EXPORTNAME.")
			}
			i := find(pos[2])
			if i < 0 {
				return g.fail("The SMB export %s does not exist.", pos[2])
			}
			g.st.Shares = slices.Delete(g.st.Shares, i, i+1)
			g.dirty = true
			fmt.Fprintf(e.Stdout, "%s: The SMB export was deleted successfully.\n", e.tool)
		case "list":
			cols := smbDefaultColumns
			if set["--all"] {
				cols = sortedKeys(smbOptions)
			}
			var b strings.Builder
			if set["-Y"] {
				// Option names such as gpfs:leases hold a colon: percent-encoded.
				names := []string{"export", "path"}
				for _, c := range cols {
					names = append(names, strings.ReplaceAll(c, ":", "%3A"))
				}
				yHeader(&b, "mmsmb", "exports", names...)
			} else {
				fmt.Fprintf(&b, "export\tpath\t%s\n", strings.Join(cols, "\t"))
			}
			for _, sh := range g.st.Shares {
				if len(pos) > 2 && !strings.EqualFold(pos[2], sh.Name) {
					continue
				}
				row := []string{sh.Name, sh.Path}
				for _, c := range cols {
					v, ok := sh.Options[c]
					if !ok {
						v = smbOptions[c]
					}
					row = append(row, v)
				}
				if set["-Y"] {
					yData(&b, "mmsmb", "exports", true, row...)
				} else {
					b.WriteString(strings.Join(row, "\t") + "\n")
				}
			}
			if len(pos) > 2 && find(pos[2]) < 0 {
				return g.fail("The SMB export %s does not exist.", pos[2])
			}
			fmt.Fprint(e.Stdout, b.String())
		default:
			return g.fail("mmsmb export %s is not simulated.", pos[1])
		}
		return 0
	})
}

// smbNameOK follows the share name rules of SMB and mmsmb.
func smbNameOK(name string) error {
	switch {
	case name == "" || len(name) > 80:
		return fmt.Errorf("Incorrect SMB export name %q: 1 to 80 characters.", name)
	case strings.ContainsAny(name, "\\/:*?\"<>|") || strings.ContainsFunc(name, func(r rune) bool { return r < 32 || r == 127 }):
		return fmt.Errorf("Incorrect SMB export name %q: it cannot contain \\ / : * ? \" < > | or control characters.", name)
	case slices.Contains([]string{"global", "homes", "printers", "ipc$"}, strings.ToLower(name)):
		return fmt.Errorf("The SMB export name %s is reserved.", name)
	}
	return nil
}
