package cli

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"os"
	"path/filepath"

	"github.com/rocefab/rocefab/compiler/ir"
	"github.com/rocefab/rocefab/targets/doctor"
)

// evidenceFiles names files (as doctor was given them) relative to the
// directory of the plan at plan, with their digests, for the plan's
// evidence; a file with no relative path keeps its absolute one.
func evidenceFiles(plan string, files, sums []string) []doctor.EvidenceFile {
	out := make([]doctor.EvidenceFile, len(files))
	for i, f := range files {
		p, err := relTo(filepath.Dir(plan), f)
		if err != nil {
			if p, err = filepath.Abs(f); err != nil {
				p = f
			}
		}
		out[i] = doctor.EvidenceFile{Path: filepath.ToSlash(p), SHA256: sums[i]}
	}
	return out
}

// sampleRecord writes the two rounds of --sample beside the quarantine
// plan, each hashed as it is written.
type sampleRecord struct {
	files  [2]*os.File
	hashes [2]hash.Hash
}

// newSampleRecord creates the files of both rounds beside the plan at
// plan, neither when either is there and not rocefab's.
func newSampleRecord(plan string) (*sampleRecord, error) {
	if err := doctor.CheckSampleFiles(plan); err != nil {
		return nil, err
	}
	r := &sampleRecord{}
	for i := range r.files {
		f, err := doctor.CreateSampleFile(plan, i+1)
		if err != nil {
			r.close()
			return nil, err
		}
		r.files[i] = f
	}
	// The header CreateSampleFile wrote is part of the file's digest.
	for i, f := range r.files {
		r.hashes[i] = sha256.New()
		if _, err := f.Seek(0, io.SeekStart); err != nil {
			r.close()
			return nil, err
		}
		if _, err := io.Copy(r.hashes[i], f); err != nil {
			r.close()
			return nil, err
		}
	}
	return r, nil
}

// writers returns the writers of both rounds: each round's file and its
// hash.
func (r *sampleRecord) writers() [2]io.Writer {
	return [2]io.Writer{io.MultiWriter(r.files[0], r.hashes[0]), io.MultiWriter(r.files[1], r.hashes[1])}
}

// finish closes both files and returns their digests.
func (r *sampleRecord) finish() ([]string, error) {
	var errs []error
	sums := make([]string, len(r.files))
	for i, f := range r.files {
		if f == nil {
			continue
		}
		errs = append(errs, f.Close())
		r.files[i] = nil
		sums[i] = hex.EncodeToString(r.hashes[i].Sum(nil))
	}
	return sums, errors.Join(errs...)
}

// close closes the files still open.
func (r *sampleRecord) close() {
	for _, f := range r.files {
		if f != nil {
			f.Close()
		}
	}
}

// checkEvidence refuses a quarantine plan whose evidence, diagnosed again
// on fab, does not give its drains, cordons and shuts (the evidence files
// read beside it, prom the Prometheus URL with credentials when given),
// and a release plan whose quarantine plan changed since it was written
// or releases other than what that plan and the records of its apply
// give.
func checkEvidence(ctx context.Context, path string, q *doctor.Quarantine, fab *ir.Fabric, prom string) error {
	if q.Kind == doctor.KindQuarantine {
		defer diagnosisMemory()()
		if err := q.Rediagnose(ctx, filepath.Dir(path), fab, prom); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		return nil
	}
	if prom != "" {
		return fmt.Errorf("--prometheus: %s is a release plan, which reads no counters", path)
	}
	if q.Releases.Path == "" {
		return fmt.Errorf("%s: releases: the path of the quarantine plan it releases is empty: write it again with rocefab doctor --release", path)
	}
	from := filepath.Join(filepath.Dir(path), filepath.FromSlash(q.Releases.Path))
	released, err := readQuarantinePlan(from)
	if err != nil {
		return fmt.Errorf("%s releases %s: %w", path, from, err)
	}
	if released == nil || released.Kind != doctor.KindQuarantine {
		return fmt.Errorf("%s releases %s, which is not a quarantine plan (expected one with digest %s)", path, from, q.Releases.SHA256)
	}
	if released.SHA256 != q.Releases.SHA256 {
		return fmt.Errorf("%s releases the quarantine plan %s with digest %s; that file now has digest %s: it changed since the release was written; write the release again with rocefab doctor --release",
			path, from, q.Releases.SHA256, released.SHA256)
	}
	ports, err := readShutRecord(from, released)
	if err != nil {
		return err
	}
	nodes, err := readNodeRecord(from, released)
	if err != nil {
		return err
	}
	if err := q.Differs(released.Release(ports, nodes)); err != nil {
		return fmt.Errorf("%s: the release of %s and the records of its apply give another plan: %w: write the release again with rocefab doctor --release", path, from, err)
	}
	return nil
}
