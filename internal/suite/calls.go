package suite

import (
	"encoding/json"

	"github.com/mcpparity/mcpparity/scenarios"
)

// ScriptedCall is one call of scenarios/calls.json: what the recorder makes
// the reference call, and what the scenarios call again on the replay.
type ScriptedCall struct {
	Tool string         `json:"tool"`
	Args map[string]any `json:"args"`
}

// CallScript reads scenarios/calls.json.
func CallScript() ([]ScriptedCall, error) {
	data, err := scenarios.Files.ReadFile("calls.json")
	if err != nil {
		return nil, err
	}
	var calls []ScriptedCall
	if err := json.Unmarshal(data, &calls); err != nil {
		return nil, err
	}
	return calls, nil
}
