package layout

import (
	"fmt"
	"strconv"
	"strings"
)

// diagram draws each drawer as rows of bays: the group number in each bay
// (01, 02 ...), S for a global spare, "." for a drive left alone. Rows hold
// as many bays as a row of the enclosure (14 for the 42-bay drawers of an
// ME4084), followed by a legend with each group's members.
func diagram(ordered []Drive, owner []int, groups []Group) string {
	width := 2
	if len(groups) >= 100 {
		width = len(fmt.Sprint(len(groups)))
	}
	cell := func(o int) string {
		switch {
		case o > 0:
			return fmt.Sprintf("%0*d", width, o)
		case o < 0:
			return fmt.Sprintf("%*s", width, "S")
		}
		return fmt.Sprintf("%*s", width, ".")
	}

	var b strings.Builder
	for start := 0; start < len(ordered); {
		end := start
		for end < len(ordered) && ordered[end].Drawer == ordered[start].Drawer {
			end++
		}
		bays := ordered[start:end]
		fmt.Fprintf(&b, "Drawer %d (drives %s-%s)\n", bays[0].Drawer, bays[0].ID, bays[len(bays)-1].ID)
		row := rowLength(len(bays))
		labelWidth := len(bays[len(bays)-1].ID)
		for r := 0; r < len(bays); r += row {
			last := min(r+row, len(bays))
			cells := make([]string, 0, last-r)
			for i := r; i < last; i++ {
				cells = append(cells, cell(owner[start+i]))
			}
			fmt.Fprintf(&b, "  %*s-%-*s | %s\n", labelWidth, bays[r].ID, labelWidth, bays[last-1].ID, strings.Join(cells, " "))
		}
		start = end
	}
	b.WriteString("Legend: NN = disk group NN, S = global spare, . = not used\n")
	for i, g := range groups {
		fmt.Fprintf(&b, "  %s %s %s (%d drives): %s\n", cell(i+1), g.Name, g.Level, len(g.DriveIDs), idRanges(g.DriveIDs))
	}
	return b.String()
}

// rowLength picks the bays per row: the first of the common enclosure row
// lengths that divides the drawer, else 12.
func rowLength(n int) int {
	for _, w := range []int{14, 12, 10, 8} {
		if n%w == 0 {
			return w
		}
	}
	return min(12, n)
}

// idRanges writes runs of consecutive ids as ranges: "0-9, 12" for plain
// numbers, "0.0-0.9" for enclosure.slot ids; other ids are listed.
func idRanges(ids []string) string {
	var parts []string
	for i := 0; i < len(ids); {
		prefix, n, ok := splitNumeric(ids[i])
		j := i
		for ok && j+1 < len(ids) {
			p2, n2, ok2 := splitNumeric(ids[j+1])
			if !ok2 || p2 != prefix || n2 != n+(j+1-i) {
				break
			}
			j++
		}
		if j > i {
			parts = append(parts, ids[i]+"-"+ids[j])
		} else {
			parts = append(parts, ids[i])
		}
		i = j + 1
	}
	return strings.Join(parts, ", ")
}

// splitNumeric splits "0.12" into "0." and 12, "7" into "" and 7.
func splitNumeric(id string) (string, int, bool) {
	k := strings.LastIndexAny(id, ".:-_/") + 1
	n, err := strconv.Atoi(id[k:])
	if err != nil || strconv.Itoa(n) != id[k:] {
		return "", 0, false
	}
	return id[:k], n, true
}
