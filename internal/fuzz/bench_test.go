package fuzz_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/mcpparity/mcpparity/internal/fuzz"
	"github.com/mcpparity/mcpparity/internal/runner"
	"github.com/mcpparity/mcpparity/internal/target"
)

// BenchmarkSequences runs b.N sequences of the reference against itself,
// from one seed, as fuzz --target ref does (its default parallelism): the
// wall time of one sequence, and its CPU time (this process and the
// servers it started), which load on the machine changes less.
func BenchmarkSequences(b *testing.B) {
	r := newRunner(b, runner.Config{Target: target.RefTarget{}})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	before := cpuTime()
	b.ResetTimer()
	rep, err := fuzz.Run(ctx, r, fuzz.Options{Seed: 11, Sequences: b.N, Duration: 10 * time.Minute})
	if err != nil {
		b.Fatal(err)
	}
	b.StopTimer()
	if rep.Finding != nil {
		b.Fatalf("the reference differs from itself (seed %d)", rep.Finding.Seed)
	}
	b.ReportMetric(float64(rep.Steps)/float64(b.N), "steps/seq")
	b.ReportMetric(float64((cpuTime()-before).Milliseconds())/float64(b.N), "cpu-ms/seq")
}

// cpuTime is the user and system time of this process and of its children
// that ended.
func cpuTime() time.Duration {
	var self, children syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &self)
	_ = syscall.Getrusage(syscall.RUSAGE_CHILDREN, &children)
	tv := func(t syscall.Timeval) time.Duration { return time.Duration(t.Nano()) }
	return tv(self.Utime) + tv(self.Stime) + tv(children.Utime) + tv(children.Stime)
}

// BenchmarkFuzzAgainstBase runs `mcpparity fuzz --target ref` for 20 s
// with this source's binary and with the binary named by
// MCPPARITY_BASE_BINARY (an earlier build), one after the other, twice,
// and reports each one's sequences per second and their ratio: the figure
// of the fuzzer's speed, side by side in one run. Skipped without
// MCPPARITY_BASE_BINARY.
func BenchmarkFuzzAgainstBase(b *testing.B) {
	base := os.Getenv("MCPPARITY_BASE_BINARY")
	if base == "" {
		b.Skip("MCPPARITY_BASE_BINARY names no earlier build to compare with")
	}
	head := filepath.Join(b.TempDir(), "mcpparity")
	if out, err := exec.Command("go", "build", "-o", head, "github.com/mcpparity/mcpparity/cmd/mcpparity").CombinedOutput(); err != nil {
		b.Fatalf("go build: %v\n%s", err, out)
	}
	rates := map[string]float64{}
	for range 2 {
		for name, bin := range map[string]string{"base": base, "head": head} {
			rates[name] += fuzzRate(b, bin) / 2
		}
	}
	b.ReportMetric(rates["base"], "base-seq/s")
	b.ReportMetric(rates["head"], "head-seq/s")
	b.ReportMetric(rates["head"]/rates["base"], "ratio")
}

var sequencesLine = regexp.MustCompile(`(\d+) sequence\(s\), \d+ step\(s\) in ([0-9.]+)s`)

// fuzzRate runs one binary's fuzz against the reference for 20 s and
// returns its sequences per second.
func fuzzRate(b *testing.B, bin string) float64 {
	cmd := exec.Command(bin, "fuzz", "--target", "ref", "--duration", "20s", "--seed", "11", "--suite", b.TempDir())
	out, err := cmd.CombinedOutput()
	m := sequencesLine.FindSubmatch(out)
	if err != nil || m == nil {
		b.Fatalf("%s fuzz: %v\n%s", bin, err, out)
	}
	n, _ := strconv.Atoi(string(m[1]))
	secs, _ := strconv.ParseFloat(string(m[2]), 64)
	return float64(n) / secs
}
