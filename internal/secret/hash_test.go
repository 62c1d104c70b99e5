package secret

import "testing"

// The stored form must not change between releases (state compares it),
// must be slow to guess from (scrypt, not the bare sha256 of earlier
// builds) and must tell secrets apart.
func TestHashStable(t *testing.T) {
	if Hash("x") != "scrypt:5886eabafbce57569c43590b9ca942df144b765c06968dd179050426854edf7c" {
		t.Errorf("hash %s", Hash("x"))
	}
	if Hash("x") == "sha256:2d711642b726b04401627ca9fbac32f5c8530fb1903cc4db02258717921a4881" || Hash("x") == Hash("y") {
		t.Error("Hash is the bare sha256 or does not tell secrets apart")
	}
}
