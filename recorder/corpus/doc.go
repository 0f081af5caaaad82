// Package corpus is the recorder corpus: a suite folder (scenarios/,
// fixtures/, golden/) recorded from pinned real MCP servers on five SDKs
// (servers/). It holds no code; its test checks the recordings against
// the live servers (record-suite --drift) and gates the reference and the ports
// on them. See README.md.
package corpus
