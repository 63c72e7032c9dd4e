package test

import "math/rand/v2"

// RandomData returns n pseudo-random bytes, the same for the same seed.
func RandomData(seed uint64, n int) []byte {
	r := rand.New(rand.NewPCG(seed, 1))
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}
