package scenario

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// How a step's answer is compared (Step.Compare). What the UI and the agent
// send is compared exactly; bad input is a robustness property, compared
// loosely, so that the Go pool's lenient handlers and a stricter
// implementation both pass (docs/contract.md, H1).
const (
	// CompareExact compares the status, the body and the named headers.
	CompareExact = ""
	// CompareRefusal keeps the status and the body's ok, and an error that
	// is a non-empty string becomes "…": a refusal whose text is the
	// implementation's own.
	CompareRefusal = "refusal"
	// CompareAnswered keeps only whether the answer came with a status
	// below 500: any answer of the implementation's own.
	CompareAnswered = "answered"
	// CompareStatus keeps the status alone.
	CompareStatus = "status"
)

func validCompare(c string) bool {
	switch c {
	case CompareExact, CompareRefusal, CompareAnswered, CompareStatus:
		return true
	}
	return false
}

var pathPart = regexp.MustCompile(`^([^.\[\]]+)?((?:\[\d+\])*)$`)

// SplitPath reads "body.servers[2].error" as ["body","servers",2,"error"].
func SplitPath(path string) ([]any, error) {
	var out []any
	for _, part := range strings.Split(path, ".") {
		m := pathPart.FindStringSubmatch(part)
		if m == nil || m[1] == "" && m[2] == "" {
			return nil, fmt.Errorf("bad path element %q", part)
		}
		if m[1] != "" {
			out = append(out, m[1])
		}
		for _, idx := range regexp.MustCompile(`\d+`).FindAllString(m[2], -1) {
			i, _ := strconv.Atoi(idx)
			out = append(out, i)
		}
	}
	return out, nil
}
