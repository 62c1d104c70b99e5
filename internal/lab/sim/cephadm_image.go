package sim

import (
	"regexp"
	"strings"
)

// reCephImage is a Ceph release image as cephadm's global --image takes it
// (the lab only knows the upstream repository's tags).
var reCephImage = regexp.MustCompile(`^quay\.io/ceph/ceph:v(1[6-9]|20)\.[0-9]+\.[0-9]+$`)

// cephadmGlobal strips cephadm's global options before the subcommand
// (--image IMG or --image=IMG), refusing an image the lab does not know:
// code is then the exit status (argparse's 2 for a usage error).
func cephadmGlobal(e *Env, args []string) (rest []string, code int) {
	for len(args) > 0 && (args[0] == "--image" || strings.HasPrefix(args[0], "--image=")) {
		img, has := strings.CutPrefix(args[0], "--image=")
		args = args[1:]
		if !has {
			if len(args) == 0 {
				return nil, e.fail(2, "error: argument --image: expected one argument")
			}
			img, args = args[0], args[1:]
		}
		if !reCephImage.MatchString(img) {
			return nil, e.fail(1, "Error: image %s: not found (manifest unknown)", img)
		}
	}
	return args, 0
}
