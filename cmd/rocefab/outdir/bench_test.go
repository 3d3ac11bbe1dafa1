package outdir

import (
	"fmt"
	"path/filepath"
	"sync"
	"testing"
)

// BenchmarkStageWrite writes what a 1,000-switch build writes (a directory
// per switch with a 20 KB and a 50 KB file) from two workers, and commits:
// the system calls per file, not the bytes, set its cost.
func BenchmarkStageWrite(b *testing.B) {
	small, large := make([]byte, 20<<10), make([]byte, 50<<10)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		s, err := Begin(filepath.Join(b.TempDir(), fmt.Sprint(i)), Options{})
		if err != nil {
			b.Fatal(err)
		}
		var wg sync.WaitGroup
		errs := make([]error, 2)
		for w := range 2 {
			wg.Go(func() {
				for d := w; d < 1000; d += 2 {
					dir := fmt.Sprintf("leaf-%04d", d)
					if err := s.Write(dir+"/eos.cfg", small, 0o644); err != nil {
						errs[w] = err
						return
					}
					if err := s.Write(dir+"/openconfig.json", large, 0o644); err != nil {
						errs[w] = err
						return
					}
				}
			})
		}
		wg.Wait()
		for _, err := range errs {
			if err != nil {
				b.Fatal(err)
			}
		}
		if err := s.Commit(Manifest{}); err != nil {
			b.Fatal(err)
		}
	}
}
