package day2

import "fmt"

// Steps is what m's sequence does, in the words a plan shows a reviewer;
// work names the disruptive step ("reboot nsd1 to apply its BIOS
// settings").
func Steps(m Member, work string) []string {
	lock := "take the domain's lock (one member at a time; members waiting together go in name order)"
	switch m.Kind {
	case KindGPFS:
		return []string{lock,
			"check the cluster keeps quorum without " + m.Node + " (a majority of the quorum nodes active, or tiebreaker disks) and every NSD it serves has another active server",
			"mmshutdown -N " + m.Node + " and wait until GPFS is down there",
			work,
			"wait until " + m.Node + " answers again",
			"mmstartup -N " + m.Node,
			"wait until GPFS is active on " + m.Node + " and every disk of the file systems it serves is up and ready",
			"release the lock"}
	case KindCeph:
		return []string{lock,
			"check every PG is active+clean and every pool keeps min_size replicas on the other hosts (CRUSH failure domain)",
			"ceph osd set-group noout " + m.Node,
			work,
			"wait until the OSDs of " + m.Node + " are up and every PG is active+clean",
			"ceph osd unset-group noout " + m.Node,
			"check every PG is active+clean",
			"release the lock"}
	case KindBeeGFS:
		return []string{lock,
			"check every buddy group of the targets of " + m.Node + " is Online and Good on both sides",
			work + " (the buddies serve meanwhile)",
			"wait until the targets of " + m.Node + " are Online",
			"wait until their buddy groups are resynced (Good on both sides)",
			"release the lock"}
	}
	return []string{lock,
		"check every other member is online and active",
		"put " + m.Node + " in standby and wait until nothing runs on it",
		work,
		"wait until " + m.Node + " is online in the cluster",
		"clear its standby and move back what ran on it",
		"release the lock"}
}

// Numbered is steps as a numbered list, one per line.
func Numbered(steps []string) []string {
	out := make([]string, len(steps))
	for i, s := range steps {
		out[i] = fmt.Sprintf("%d. %s", i+1, s)
	}
	return out
}
