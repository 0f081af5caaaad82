// Command testprogress turns `go test -json` into a readable log that shows
// progress: a line when each package starts and ends, a line for each
// top-level test that passes or fails (with its time), and the whole
// output of every failing test and package. It exits 1 when anything
// failed or the input is not test2json.
//
//	go test -json ./... | go run ./cmd/testprogress
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path"
	"strings"
	"time"
)

type event struct {
	Time    time.Time
	Action  string
	Package string
	Test    string
	Elapsed float64
	Output  string
}

func main() { os.Exit(run(os.Stdin, os.Stdout)) }

func run(in io.Reader, out io.Writer) int {
	start := time.Now()
	outputs := map[string]*strings.Builder{} // package + test → output
	failed, seen := false, false
	key := func(e event) string { return e.Package + "\x00" + e.Test }
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		var e event
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			// Not an event: a build failure prints plain text.
			fmt.Fprintln(out, sc.Text())
			failed = true
			continue
		}
		seen = true
		topLevel := e.Test != "" && !strings.Contains(e.Test, "/")
		switch e.Action {
		case "start":
			fmt.Fprintf(out, "[%4.0fs] %s: started\n", time.Since(start).Seconds(), e.Package)
		case "output":
			b := outputs[key(e)]
			if b == nil {
				b = &strings.Builder{}
				outputs[key(e)] = b
			}
			b.WriteString(e.Output)
			if e.Test != "" && !topLevel {
				// Subtests' output also belongs to their top-level test.
				parent := e.Package + "\x00" + strings.SplitN(e.Test, "/", 2)[0]
				if p := outputs[parent]; p != nil {
					p.WriteString(e.Output)
				}
			}
		case "pass", "fail", "skip":
			if e.Test == "" {
				fmt.Fprintf(out, "[%4.0fs] %s: %s (%.1fs)\n", time.Since(start).Seconds(), e.Package, verb(e.Action), e.Elapsed)
				if e.Action == "fail" {
					failed = true
					if b := outputs[key(e)]; b != nil {
						fmt.Fprint(out, indent(b.String()))
					}
				}
				continue
			}
			if !topLevel {
				continue
			}
			fmt.Fprintf(out, "[%4.0fs]   %s %s %s (%.1fs)\n", time.Since(start).Seconds(), verb(e.Action), path.Base(e.Package), e.Test, e.Elapsed)
			if e.Action == "fail" {
				failed = true
				if b := outputs[key(e)]; b != nil {
					fmt.Fprint(out, indent(b.String()))
				}
			}
			if e.Action == "skip" {
				if b := outputs[key(e)]; b != nil {
					fmt.Fprint(out, indent(lastLines(b.String(), 2)))
				}
			}
			delete(outputs, key(e))
		}
	}
	if err := sc.Err(); err != nil {
		fmt.Fprintln(out, "testprogress:", err)
		return 1
	}
	if failed || !seen {
		fmt.Fprintf(out, "FAIL after %.0fs\n", time.Since(start).Seconds())
		return 1
	}
	fmt.Fprintf(out, "ok after %.0fs\n", time.Since(start).Seconds())
	return 0
}

func verb(action string) string {
	switch action {
	case "pass":
		return "ok  "
	case "fail":
		return "FAIL"
	}
	return "skip"
}

func indent(s string) string {
	s = strings.TrimRight(s, "\n")
	if s == "" {
		return ""
	}
	return "        " + strings.ReplaceAll(s, "\n", "\n        ") + "\n"
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
