package scenario

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"time"
)

// Step is one thing the harness does and observes. Its Kind says what: the
// fields it takes are those of its kind (kindFields), the others are
// refused at load. The groups of fields are embedded, so that a step's
// JSON is one flat object.
type Step struct {
	Name string `json:"name"`
	// Kind is one of Kinds: KindRequest, KindObserve, KindRelease,
	// KindParallel, KindChanges or KindReplays.
	Kind string `json:"kind"`
	// Rules are the clauses of docs/rules.md and docs/contract.md the step
	// tests (e.g. "C4.2", "H1.1"): docs/rules-coverage.md is made of them.
	Rules []string `json:"rules,omitempty"`
	Request
	Observe
	Waits
	// Parallel (KindParallel) runs these steps at the same time; the
	// observation lists theirs in this order.
	Parallel []Step `json:"parallel,omitempty"`
}

// The kinds of step (Step.Kind).
const (
	// KindRequest sends an HTTP request to the target (Request), may wait
	// before it (Waits) and observe after it (Observe).
	KindRequest = "request"
	// KindObserve only observes (Observe), after its waits (Waits).
	KindObserve = "observe"
	// KindRelease only releases held requests (Waits.Release), after its
	// other waits.
	KindRelease = "release"
	// KindParallel runs its steps (Step.Parallel) at the same time: each
	// a request, an observation or a release.
	KindParallel = "parallel"
	// KindChanges expands into one request-and-store step per config change
	// of scenarios/changes, checked against their declared expectations.
	KindChanges = "changes"
	// KindReplays, the last step, stops the target and observes the
	// reports of the scenario's replays; it may also observe processes
	// (processes, alive, settle) once the target stopped.
	KindReplays = "replays"
)

// Kinds are the kinds of step, in the order the docs give them.
var Kinds = []string{KindRequest, KindObserve, KindRelease, KindParallel, KindChanges, KindReplays}

// Request is an HTTP request to the target, and how its answer is seen.
type Request struct {
	Method string          `json:"method,omitempty"`
	Path   string          `json:"path,omitempty"`
	Body   json.RawMessage `json:"body,omitempty"`
	// RawBody is sent as is instead of Body (a malformed body).
	RawBody *string `json:"rawBody,omitempty"`
	// PadTo pads Body (an object) with a string field "pad" to exactly
	// this many bytes (a body over the contract's limit).
	PadTo int `json:"padTo,omitempty"`
	// ShortBody sends the body with a Content-Length that promises more,
	// then closes the client's side: a body that cannot be read to its
	// end (H1.6).
	ShortBody bool `json:"shortBody,omitempty"`
	// Headers names answer headers to observe (e.g. "Allow").
	Headers []string `json:"headers,omitempty"`
	// Compare says how much of the answer is compared: CompareExact (the
	// default), CompareRefusal, CompareAnswered or CompareStatus.
	Compare string `json:"compare,omitempty"`
	// Masks, path → prefix: an observed string at that path (e.g.
	// "body.output") that starts with the prefix is cut after it, followed
	// by "…": the rest is a transport text of the target's stack.
	Masks map[string]string `json:"masks,omitempty"`
	// Expect, when set, must equal the observation (as well as the golden).
	Expect *Observation `json:"expect,omitempty"`
}

// Observe is what a step observes after its request (or alone).
type Observe struct {
	// Store observes the target's store.
	Store bool `json:"store,omitempty"`
	// Processes observes the processes of the named stdio replays:
	// started, and still alive once the target had Settle (default
	// ProcessSettle) to end those it dropped.
	Processes []string `json:"processes,omitempty"`
	// Alive observes only how many processes of the named stdio replays
	// are still alive once Settle passed: for a server the target ends at
	// a deadline, which may kill it before it could announce itself, so
	// that how many started depends on the machine's speed.
	Alive  []string `json:"alive,omitempty"`
	Settle string   `json:"settle,omitempty"`
}

// Waits are what a step waits for, or releases, before its request or
// observation.
type Waits struct {
	// WaitStarted waits until the target has started this many processes
	// of each named stdio replay.
	WaitStarted map[string]int `json:"waitStarted,omitempty"`
	// WaitReceived waits until each named replay has received this many
	// messages of each method (server → method → count).
	WaitReceived map[string]map[string]int `json:"waitReceived,omitempty"`
	// Release releases the requests the named replays hold
	// (ServerSpec.Holds).
	Release []string `json:"release,omitempty"`
	// After, for a step of a parallel step, waits until the named sibling
	// is done.
	After string `json:"after,omitempty"`
}

// Fields of each group, by their JSON names.
var (
	requestFields = jsonFields(reflect.TypeFor[Request]())
	observeFields = jsonFields(reflect.TypeFor[Observe]())
	waitFields    = jsonFields(reflect.TypeFor[Waits]())
)

// kindFields are the fields each kind takes, beside name, kind and rules.
var kindFields = map[string][]string{
	KindRequest:  slices.Concat(requestFields, observeFields, waitFields),
	KindObserve:  slices.Concat(observeFields, waitFields),
	KindRelease:  waitFields,
	KindParallel: {"parallel"},
	KindChanges:  nil,
	KindReplays:  {"processes", "alive", "settle"},
}

// validateStep checks a step (nested: one of a parallel step's): its name and
// rules, that it sets only fields of its kind, then the kind's own rules.
func (s *Scenario) validateStep(st Step, nested bool) error {
	if st.Name == "" {
		return errors.New("every step needs a name")
	}
	for _, r := range st.Rules {
		if !validClause(r) {
			return fmt.Errorf("step %q: unknown clause %q (want a clause of docs/rules.md or docs/contract.md, e.g. C4.2)", st.Name, r)
		}
	}
	takes, ok := kindFields[st.Kind]
	if !ok {
		if st.Kind == "" {
			return fmt.Errorf("step %q: no kind: want one of %s", st.Name, strings.Join(Kinds, ", "))
		}
		return fmt.Errorf("step %q: kind %q: want one of %s", st.Name, st.Kind, strings.Join(Kinds, ", "))
	}
	for _, field := range setFields(st) {
		if !slices.Contains(takes, field) {
			return fmt.Errorf("step %q: kind %s takes no %s", st.Name, st.Kind, field)
		}
	}
	switch st.Kind {
	case KindRequest:
		return s.validateRequest(st, nested)
	case KindObserve:
		return s.validateObserve(st, nested)
	case KindRelease:
		return s.validateRelease(st, nested)
	case KindParallel:
		return s.validateParallel(st, nested)
	case KindChanges:
		return validateChanges(st, nested)
	default:
		return validateReplays(st, nested)
	}
}

func (s *Scenario) validateRequest(st Step, nested bool) error {
	if st.Method == "" || st.Path == "" {
		return fmt.Errorf("step %q: kind request needs a method and a path", st.Name)
	}
	if !validCompare(st.Compare) {
		return fmt.Errorf("step %q: compare %q: want %q, %q or %q", st.Name, st.Compare, CompareRefusal, CompareAnswered, CompareStatus)
	}
	if st.RawBody != nil && (len(st.Body) > 0 || st.PadTo > 0) {
		return fmt.Errorf("step %q: rawBody goes alone (no body, no padTo)", st.Name)
	}
	for path := range st.Masks {
		if _, err := SplitPath(path); err != nil {
			return fmt.Errorf("step %q: mask %q: %w", st.Name, path, err)
		}
	}
	if err := validateObservations(st); err != nil {
		return err
	}
	return s.validateWaits(st, nested)
}

func (s *Scenario) validateObserve(st Step, nested bool) error {
	if !st.Store && len(st.Processes)+len(st.Alive) == 0 {
		return fmt.Errorf("step %q: kind observe observes nothing: want store, processes or alive", st.Name)
	}
	if err := validateObservations(st); err != nil {
		return err
	}
	return s.validateWaits(st, nested)
}

func (s *Scenario) validateRelease(st Step, nested bool) error {
	if len(st.Release) == 0 {
		return fmt.Errorf("step %q: kind release releases nothing: want release", st.Name)
	}
	return s.validateWaits(st, nested)
}

func (s *Scenario) validateParallel(st Step, nested bool) error {
	if nested {
		return fmt.Errorf("step %q: a parallel step holds only its steps (not nested)", st.Name)
	}
	if len(st.Parallel) == 0 {
		return fmt.Errorf("step %q: kind parallel holds no steps: want parallel", st.Name)
	}
	names := map[string]bool{}
	for _, sub := range st.Parallel {
		if err := s.validateStep(sub, true); err != nil {
			return fmt.Errorf("step %q: %w", st.Name, err)
		}
		names[sub.Name] = true
	}
	after := map[string]string{}
	for _, sub := range st.Parallel {
		if sub.After != "" && !names[sub.After] {
			return fmt.Errorf("step %q: %q comes after %q, which is not one of its steps", st.Name, sub.Name, sub.After)
		}
		after[sub.Name] = sub.After
	}
	for _, sub := range st.Parallel {
		// A chain of "after" longer than the steps is a cycle.
		n, name := 0, sub.Name
		for ; name != "" && n <= len(st.Parallel); n++ {
			name = after[name]
		}
		if name != "" {
			return fmt.Errorf("step %q: its steps wait for each other in a cycle", st.Name)
		}
	}
	return nil
}

func validateChanges(st Step, nested bool) error {
	if nested {
		return fmt.Errorf("step %q: kind changes is not for the steps of a parallel step", st.Name)
	}
	return nil
}

// validateReplays checks a replays step; that it comes last is checked with
// the scenario's steps.
func validateReplays(st Step, nested bool) error {
	if nested {
		return fmt.Errorf("step %q: kind replays is not for the steps of a parallel step", st.Name)
	}
	return validateObservations(st)
}

// validateObservations checks the process observations of a step.
func validateObservations(st Step) error {
	for _, name := range st.Alive {
		if slices.Contains(st.Processes, name) {
			return fmt.Errorf("step %q: %q is in processes and alive: name it in one", st.Name, name)
		}
	}
	if st.Settle != "" {
		if d, err := time.ParseDuration(st.Settle); err != nil || d <= 0 || len(st.Processes)+len(st.Alive) == 0 {
			return fmt.Errorf("step %q: settle %q: want a positive duration, with processes or alive", st.Name, st.Settle)
		}
	}
	return nil
}

// validateWaits checks what a step waits for against the scenario's servers.
func (s *Scenario) validateWaits(st Step, nested bool) error {
	if st.After != "" && !nested {
		return fmt.Errorf("step %q: after is for the steps of a parallel step", st.Name)
	}
	for _, name := range st.Release {
		if sv, ok := s.Servers[name]; !ok || len(sv.Holds) == 0 {
			return fmt.Errorf("step %q: release: %q is not a replay of this scenario that holds requests", st.Name, name)
		}
	}
	for name := range st.WaitStarted {
		if sv, ok := s.Servers[name]; !ok || !sv.Stdio {
			return fmt.Errorf("step %q: waitStarted: %q is not a stdio replay of this scenario", st.Name, name)
		}
	}
	for name := range st.WaitReceived {
		if sv, ok := s.Servers[name]; !ok || sv.Replay == "" {
			return fmt.Errorf("step %q: waitReceived: %q is not a replay of this scenario", st.Name, name)
		}
	}
	return nil
}

// setFields are the JSON names of the fields st sets, beside name, kind and
// rules, in the order of the struct.
func setFields(st Step) []string {
	var set []string
	var walk func(v reflect.Value)
	walk = func(v reflect.Value) {
		for i := range v.NumField() {
			f := v.Type().Field(i)
			switch {
			case f.Anonymous:
				walk(v.Field(i))
			case f.Name == "Name" || f.Name == "Kind" || f.Name == "Rules":
			case !v.Field(i).IsZero():
				set = append(set, jsonName(f))
			}
		}
	}
	walk(reflect.ValueOf(st))
	return set
}

// jsonFields are the JSON names of the fields of the struct type t.
func jsonFields(t reflect.Type) []string {
	var names []string
	for f := range t.Fields() {
		names = append(names, jsonName(f))
	}
	return names
}

func jsonName(f reflect.StructField) string {
	name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
	return name
}
