package runner

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/mcpparity/mcpparity/fixtures"
	"github.com/mcpparity/mcpparity/internal/childproc"
	"github.com/mcpparity/mcpparity/internal/scenario"
	"github.com/mcpparity/mcpparity/internal/sdkserver"
	"github.com/mcpparity/mcpparity/internal/target"
	"github.com/mcpparity/mcpparity/replay"
)

// running holds the servers of one scenario run.
type running struct {
	urls     map[string]string   // {url:NAME}
	cmds     map[string][]string // {cmd:NAME} + {args:NAME}
	replays  map[string]*replay.Replay
	received map[string]*received     // HTTP replays: messages received
	stdio    map[string]childproc.Dir // name → report folder of its processes
	lock     string                   // held while the scenario runs
	reports  string
	closers  []func()
	// fixture reads a fixture by name, as the scenario finds it.
	fixture func(name string) (*fixtures.Fixture, string, error)
	// byName: the scenario names its stdio recordings as embedded ones
	// (not a suite's), whatever folder they are read from.
	byName bool
	waits  target.Waits
	// cancellations names the servers whose cancellations are observed.
	cancellations map[string]bool
}

// startServers starts the scenario's servers. harness is the command line
// that runs this harness's replay subcommand (stdio replays).
func startServers(s *scenario.Scenario, harness []string, workspace, reports string, waits target.Waits) (*running, error) {
	r := &running{waits: waits.WithDefaults(), urls: map[string]string{}, cmds: map[string][]string{}, replays: map[string]*replay.Replay{},
		received: map[string]*received{}, stdio: map[string]childproc.Dir{}, lock: childproc.RunLock(reports), reports: reports,
		fixture: s.Fixture, byName: s.Suite == "", cancellations: map[string]bool{}}
	// While the harness runs the scenario it holds this lock; a stdio
	// replay ends as soon as it is released, so that a killed harness
	// leaves no replay behind (not even a lingering one).
	held, err := childproc.Hold(r.lock)
	if err != nil {
		return nil, err
	}
	r.closers = append(r.closers, func() { held.Close() })
	barriers := map[string]int{}
	for _, sv := range s.Servers {
		if sv.Barrier != "" {
			barriers[sv.Barrier]++
		}
	}
	for _, name := range slices.Sorted(maps.Keys(s.Servers)) {
		sv := s.Servers[name]
		r.cancellations[name] = sv.Cancellations
		faults, err := serverFaults(sv, barriers[sv.Barrier], reports, name)
		if err == nil {
			err = r.start(name, sv, faults, harness, workspace, reports)
		}
		if err != nil {
			r.close()
			return nil, fmt.Errorf("server %q: %w", name, err)
		}
	}
	return r, nil
}

// serverFaults are a server's faults: those of its spec, then its
// barrier's (n replays meet there) and its holds.
func serverFaults(sv scenario.ServerSpec, n int, reports, name string) ([]replay.Fault, error) {
	var faults []replay.Fault
	for _, f := range sv.Faults {
		ft, err := replay.ParseFault(f)
		if err != nil {
			return nil, err
		}
		faults = append(faults, ft)
	}
	if sv.Barrier != "" {
		faults = append(faults, replay.Fault{Kind: replay.FaultBarrier, N: n, Dir: filepath.Join(reports, "barrier-"+sv.Barrier)})
	}
	for _, sel := range sv.Holds {
		ft, err := replay.ParseFault("hold:" + sel + ":" + holdDir(reports, name))
		if err != nil {
			return nil, err
		}
		faults = append(faults, ft)
	}
	return faults, nil
}

func (r *running) start(name string, sv scenario.ServerSpec, faults []replay.Fault, harness []string, workspace, reports string) error {
	switch {
	case sv.Live == "gen-stdio":
		r.cmds[name] = append(append([]string{}, harness...), "sdk-server", "--gen", "--stdio", "--while-locked", r.lock)
	case sv.Live != "":
		handler := sdkserver.Handler(sv.Live == "json")
		switch {
		case sv.Live == "empty-json":
			handler = sdkserver.EmptyHandler()
		case strings.HasPrefix(sv.Live, "gen-"):
			handler = sdkserver.GenHandler(sv.Live == "gen-json")
		}
		srv := httptest.NewServer(handler)
		r.closers = append(r.closers, func() { srv.CloseClientConnections(); srv.Close() })
		r.urls[name] = srv.URL + "/mcp"
	case sv.Stdio:
		fixture, err := r.stdioFixture(sv.Replay)
		if err != nil {
			return err
		}
		dir := filepath.Join(reports, name)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
		r.stdio[name] = childproc.Dir(dir)
		argv := append([]string{}, harness...)
		argv = append(argv, "replay", "--stdio", "--fixture", fixture, "--report-dir", dir, "--while-locked", r.lock)
		// The spec's faults as written (the target shows its args), then
		// the barrier's and the holds'.
		for _, f := range sv.Faults {
			argv = append(argv, "--fault", f)
		}
		for _, f := range faults[len(sv.Faults):] {
			argv = append(argv, "--fault", f.String())
		}
		if sv.FaultsOnce {
			argv = append(argv, "--faults-once", childproc.FaultsOnce(reports, name))
			for _, f := range sv.LaterFaults {
				argv = append(argv, "--later-fault", f)
			}
		}
		for _, k := range slices.Sorted(maps.Keys(sv.RequireEnv)) {
			argv = append(argv, "--require-env", k+"="+sv.RequireEnv[k])
		}
		if sv.Grandchild {
			wrap := []string{harness[0], "spawn"}
			if sv.LeaderExits {
				wrap = append(wrap, "--exit-at-eof")
			}
			argv = append(append(append(wrap, "--"), harness...), argv[len(harness):]...)
		}
		if sv.Launcher != "" {
			if err := makeLauncher(workspace, sv.Launcher, argv[0]); err != nil {
				return err
			}
			argv[0] = filepath.Join(workspace, "bin", sv.Launcher)
		}
		r.cmds[name] = argv
		r.closers = append(r.closers, func() { r.reap(name) })
	default:
		fx, _, err := r.fixture(sv.Replay)
		if err != nil {
			return err
		}
		rec := &received{counts: map[string]int{}}
		rp, err := replay.New(fx, replay.Options{Faults: faults, RequireHeaders: sv.RequireHeaders, OnReceive: rec.add})
		if err != nil {
			return err
		}
		r.received[name] = rec
		srv := httptest.NewServer(rp)
		r.replays[name] = rp
		r.closers = append(r.closers, func() { _ = rp.Close(); srv.CloseClientConnections(); srv.Close() })
		r.urls[name] = srv.URL + fx.Endpoint()
	}
	return nil
}

func (r *running) close() {
	for i := len(r.closers) - 1; i >= 0; i-- {
		r.closers[i]()
	}
	r.closers = nil
}

func observeReport(rep replay.Report) scenario.ReplayObservation {
	o := scenario.ReplayObservation{Sessions: rep.Sessions, Calls: rep.Calls, Answers: rep.Answers, Faults: rep.Faults}
	for _, u := range rep.Unmatched {
		o.Unmatched = append(o.Unmatched, u.Message)
	}
	for _, h := range rep.HeaderMismatches {
		o.HeaderMismatches = append(o.HeaderMismatches, h.Request+" "+h.Header+" "+h.Problem)
	}
	for _, m := range rep.MissingAnswers {
		o.MissingAnswers = append(o.MissingAnswers, fmt.Sprintf("%s (seq %d): %s", m.Method, m.Seq, m.Problem))
	}
	o.EnvMismatches = append(o.EnvMismatches, rep.EnvMismatches...)
	return o
}

// observeReplays reads every replay's report: HTTP replays in process,
// stdio replays from the report files their processes wrote (one process,
// so one session, per file) once they have all ended. A stdio replay still
// running Waits.ReplaySettle after the target stopped is a failure of its own
// (it is then killed), never a silent count.
func (r *running) observeReplays(ctx context.Context) (map[string]scenario.ReplayObservation, []string, error) {
	out := map[string]scenario.ReplayObservation{}
	var failures []string
	for _, name := range slices.Sorted(maps.Keys(r.replays)) {
		rep := r.replays[name].Report()
		o := observeReport(rep)
		o.Ended = &rep.Ended
		r.observeCancelled(name, &o, rep.Cancelled)
		out[name] = o
		for _, req := range rep.Refused {
			failures = append(failures, "replays: "+name+": refused: "+req)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(r.stdio)) {
		dir := r.stdio[name]
		c, err := r.settleOne(ctx, name, r.waits.ReplaySettle)
		if err != nil {
			return nil, nil, err
		}
		if c.Alive > 0 {
			failures = append(failures, fmt.Sprintf("replays: %d stdio server(s) of %s outlived the target by %v", c.Alive, name, r.waits.ReplaySettle))
			r.reap(name)
		}
		pids, err := dir.Reports()
		if err != nil {
			return nil, nil, err
		}
		var sum scenario.ReplayObservation
		cancelled := 0
		for _, pid := range pids {
			data, err := os.ReadFile(dir.ReportFile(pid))
			if err != nil {
				return nil, nil, err
			}
			var rep replay.Report
			if err := json.Unmarshal(data, &rep); err != nil {
				return nil, nil, fmt.Errorf("replay report %s: %w", dir.ReportFile(pid), err)
			}
			o := observeReport(rep)
			for _, req := range rep.Refused {
				failures = append(failures, "replays: "+name+": refused: "+req)
			}
			sum.Sessions += o.Sessions
			sum.Calls += o.Calls
			sum.Answers += o.Answers
			sum.Unmatched = append(sum.Unmatched, o.Unmatched...)
			sum.MissingAnswers = append(sum.MissingAnswers, o.MissingAnswers...)
			sum.EnvMismatches = append(sum.EnvMismatches, o.EnvMismatches...)
			sum.Faults = append(sum.Faults, o.Faults...)
			cancelled += rep.Cancelled
		}
		r.observeCancelled(name, &sum, cancelled)
		out[name] = sum
	}
	return out, failures, nil
}

// observeCancelled sets a replay's count of cancellations when its
// scenario observes them (ServerSpec.Cancellations).
func (r *running) observeCancelled(name string, o *scenario.ReplayObservation, n int) {
	if r.cancellations[name] {
		o.Cancelled = &n
	}
}

// expand replaces {url:NAME}, {cmd:NAME} in s.
func (r *running) expand(s string) string {
	if !strings.Contains(s, "{") {
		return s
	}
	for name, u := range r.urls {
		s = strings.ReplaceAll(s, "{url:"+name+"}", u)
	}
	for name, argv := range r.cmds {
		s = strings.ReplaceAll(s, "{cmd:"+name+"}", argv[0])
	}
	return s
}

// expandText expands the placeholders of a seed written as text (JSON or
// not): a quoted "{args:NAME}" becomes the stdio replay's arguments, each a
// JSON string; {url:NAME} and {cmd:NAME} their values, escaped as in a
// JSON string; then the target's placeholders.
func (r *running) expandText(env target.Env, text string) string {
	esc := func(v string) string {
		b, _ := json.Marshal(v)
		return string(b[1 : len(b)-1])
	}
	for name, argv := range r.cmds {
		args := make([]string, 0, len(argv)-1)
		for _, a := range argv[1:] {
			b, _ := json.Marshal(a)
			args = append(args, string(b))
		}
		text = strings.ReplaceAll(text, `"{args:`+name+`}"`, strings.Join(args, ","))
		text = strings.ReplaceAll(text, "{cmd:"+name+"}", esc(argv[0]))
	}
	for name, u := range r.urls {
		text = strings.ReplaceAll(text, "{url:"+name+"}", esc(u))
	}
	return env.Expand(text)
}

// expandJSON expands placeholders in every string of a JSON document; an
// array element "{args:NAME}" becomes the stdio replay's arguments.
func (r *running) expandJSON(env target.Env, raw json.RawMessage) (json.RawMessage, error) {
	if len(raw) == 0 {
		return raw, nil
	}
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return nil, err
	}
	v = r.walk(env, v)
	return json.Marshal(v)
}

func (r *running) walk(env target.Env, v any) any {
	switch v := v.(type) {
	case string:
		return env.Expand(r.expand(v))
	case []any:
		out := make([]any, 0, len(v))
		for _, e := range v {
			if s, ok := e.(string); ok && strings.HasPrefix(s, "{args:") && strings.HasSuffix(s, "}") {
				if argv, ok := r.cmds[strings.TrimSuffix(strings.TrimPrefix(s, "{args:"), "}")]; ok {
					for _, a := range argv[1:] {
						out = append(out, a)
					}
					continue
				}
			}
			out = append(out, r.walk(env, e))
		}
		return out
	case map[string]any:
		for k, e := range v {
			v[k] = r.walk(env, e)
		}
		return v
	}
	return v
}

// makeLauncher links {workspace}/bin/<name> to target (once).
func makeLauncher(workspace, name, target string) error {
	link := filepath.Join(workspace, "bin", name)
	if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
		return err
	}
	if err := os.Symlink(target, link); err != nil && !os.IsExist(err) {
		return err
	}
	return nil
}

// holdDir is where a step releases the requests a replay holds.
func holdDir(reports, server string) string { return filepath.Join(reports, "hold-"+server) }

// release releases the requests the named replay holds.
func (r *running) release(name string) error {
	dir := holdDir(r.reports, name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, replay.ReleaseFile), nil, 0o644)
}

// stdioFixture is the --fixture of a stdio replay: an embedded
// recording's name, or a copy of the suite's file in the reports folder,
// which a container target shares. A scenario of the source tree
// (scenario.LoadSource) names its recording as the embedded one does; the
// replay reads the copy (childproc.Dir.Fixture).
func (r *running) stdioFixture(name string) (string, error) {
	_, file, err := r.fixture(name)
	if err != nil || file == "" {
		return name, err
	}
	data, err := os.ReadFile(file)
	if err != nil {
		return "", err
	}
	dst := childproc.Fixture(r.reports, name)
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return "", err
	}
	if err := os.WriteFile(dst, data, 0o644); err != nil {
		return "", err
	}
	if r.byName {
		return name, nil
	}
	return dst, nil
}
