// Package secret holds what the provider keeps of a secret in state: a
// slow hash, so a changed secret shows at plan time without storing it.
package secret

import (
	"crypto/sha256"
	"encoding/hex"
	"sync"

	"golang.org/x/crypto/scrypt"
)

// Hash is what state stores instead of the secret. State files travel (S3
// buckets, CI artefacts), so it is scrypt (N=2^15, r=8, p=1), not a bare
// sha256: guessing a weak secret from state costs about 32 MB and tens of
// milliseconds per guess. The salt is fixed so every resource holding the
// same secret shows the same hash, and each secret is hashed once per
// provider process.
func Hash(secret string) string {
	key := sha256.Sum256([]byte(secret))
	// Once per secret even when many resources ask at once (a site's
	// clients, planned -parallelism at a time): each scrypt takes 32 MB.
	v, _ := hashes.LoadOrStore(key, &hashOnce{})
	h := v.(*hashOnce)
	h.once.Do(func() {
		dk, err := scrypt.Key([]byte(secret), []byte(salt), 1<<15, 8, 1, 32)
		if err != nil {
			// Only for parameters scrypt rejects; these are constants.
			panic(err)
		}
		h.hash = "scrypt:" + hex.EncodeToString(dk)
	})
	return h.hash
}

type hashOnce struct {
	once sync.Once
	hash string
}

// The salt names the old package's version: changing it would show every
// secret in every state as changed.
const salt = "hpcstorage secret hash v1"

var hashes sync.Map // sha256 of the secret -> *hashOnce
