package provider

import "strings"

// backtickList writes values for a description: `a`, `b`, `c`. Enums are
// defined once in their package and fed through here into the docs.
func backtickList(l []string) string {
	q := make([]string, len(l))
	for i, s := range l {
		q[i] = "`" + s + "`"
	}
	return strings.Join(q, ", ")
}

// enumDoc is backtickList under its old name, kept while the GPFS and Ceph
// files still call it.
var enumDoc = backtickList
