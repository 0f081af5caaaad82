// Package config embeds the sixteen config mutations: each file is a
// request through the contract with the response and the stored state it
// must give (see internal/suite.Mutation).
package config

import "embed"

// Files holds the mutation files, *.json.
//
//go:embed *.json
var Files embed.FS
