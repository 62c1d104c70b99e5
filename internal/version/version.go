// Package version holds the build version, stamped by the linker.
package version

// Version is set with -ldflags "-X .../internal/version.Version=...".
var Version = "dev"
