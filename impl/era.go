package impl

import (
	"fmt"
	"strings"
)

// EraVar is the environment variable of the contract that names the
// protocol era a target speaks (E1): a harness sets it for every scenario
// of a run.
const EraVar = "MCPPARITY_ERA"

// The two eras (E1.1): the handshake era, the Go pool's and the default,
// and the revision without handshake, negotiated as the go-sdk v1.8.0
// client does by default (E2).
const (
	EraHandshake = "2025-11-25"
	EraModern    = "2026-07-28"
)

// Eras lists the eras, the default first.
var Eras = []string{EraHandshake, EraModern}

// ParseEra reads an era: one of Eras; "" is the handshake era.
func ParseEra(s string) (string, error) {
	s = strings.TrimSpace(s)
	switch s {
	case "":
		return EraHandshake, nil
	case EraHandshake, EraModern:
		return s, nil
	}
	return "", fmt.Errorf("%s=%q: want %s (the default) or %s", EraVar, s, EraHandshake, EraModern)
}
