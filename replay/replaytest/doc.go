// Package replaytest holds a replay of a recording for one Go test, as
// net/http/httptest holds a server: NewServer serves an HTTP recording on
// loopback and gives its URL, NewStdio serves a stdio recording in the
// test's process and gives the two ends of its pipes (an mcp.Transport).
// When the test ends, the replay is closed and the test fails with the
// replay's findings: each request the fixture lacks, each required
// header missing, each server request left unanswered, each refusal.
//
//	srv := replaytest.NewServer(t, "sdk/json.json")
//	session, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: srv.URL}, nil)
//
// A fixture is named as `mcpparity replay --fixture` takes it: a file, or
// else an embedded fixture (a path below fixtures/recordings).
package replaytest
