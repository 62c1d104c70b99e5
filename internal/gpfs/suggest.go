package gpfs

import "github.com/hpcstorage/terraform-provider-hpcstorage/internal/suggest"

func closest(got string, options []string) (string, bool) { return suggest.Closest(got, options, 3) }
