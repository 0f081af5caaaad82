package impl

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// TimeScaleVar is the environment variable of the contract that scales
// every deadline of a target: the handshake deadlines (P3), the call bound
// (P10) and the grace a closing stdio server gets (P2). A harness sets it so
// that a scenario tells 20 s from 3 min, or parallel from sequential
// connections, in milliseconds. The P4 texts keep the unscaled durations.
const TimeScaleVar = "MCPPARITY_TIME_SCALE"

// ParseTimeScale reads a time scale: a decimal number in (0, 1]; "" is 1.
func ParseTimeScale(s string) (float64, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 1, nil
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || !(f > 0 && f <= 1) {
		return 0, fmt.Errorf("%s=%q: want a decimal number in (0, 1], e.g. 0.01", TimeScaleVar, s)
	}
	return f, nil
}

// scale applies a time scale to d (0 means 1).
func scale(d time.Duration, s float64) time.Duration {
	if s <= 0 || s == 1 {
		return d
	}
	return time.Duration(float64(d) * s)
}

// EnvOptions reads the contract's variables through getenv: the time scale
// (TimeScaleVar) and the era (EraVar).
func EnvOptions(getenv func(string) string) (Options, error) {
	scale, err := ParseTimeScale(getenv(TimeScaleVar))
	if err != nil {
		return Options{}, err
	}
	era, err := ParseEra(getenv(EraVar))
	if err != nil {
		return Options{}, err
	}
	return Options{TimeScale: scale, Era: era}, nil
}
