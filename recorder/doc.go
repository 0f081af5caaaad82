// Package recorder captures the wire traffic of a real MCP server into
// fixtures: a recording reverse proxy for Streamable HTTP (JSON and SSE
// answers) and a tee for stdio, a prober that sends an HTTP server the
// requests of a faulty client and keeps its answers (Proxy.Probe), a
// normalizer that takes secrets, session ids, event ids, hosts and timings
// out, and a builder that fills the manifest from the traffic. The format
// is fixtures.Fixture (docs/fixtures.md).
package recorder
