// Package strictjson decodes the harness's hand-written JSON files (fixtures,
// scenarios, target files, call scripts): unknown fields and trailing data
// are refused, and errors name the file with the line and column of the fault.
package strictjson

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// Decode decodes data, the contents of the file name, into v. what names the
// document in errors ("fixture", "scenario").
func Decode(name, what string, data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return positionError(name, what, data, err)
	}
	if _, err := dec.Token(); err != io.EOF {
		line, col := position(data, int(dec.InputOffset()))
		return fmt.Errorf("%s:%d:%d: trailing data after the %s", name, line, col, what)
	}
	return nil
}

func positionError(name, what string, data []byte, err error) error {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn):
		line, col := position(data, int(syn.Offset))
		return fmt.Errorf("%s:%d:%d: malformed JSON: %v", name, line, col, syn)
	case errors.As(err, &typ):
		line, col := position(data, int(typ.Offset))
		return fmt.Errorf("%s:%d:%d: field %q: %v", name, line, col, typ.Field, typ)
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		line, col := position(data, len(data))
		return fmt.Errorf("%s:%d:%d: truncated %s", name, line, col, what)
	default:
		return fmt.Errorf("%s: %v", name, err)
	}
}

// position converts a byte offset into a 1-based line and column.
func position(data []byte, off int) (line, col int) {
	off = min(off, len(data))
	line = 1 + bytes.Count(data[:off], []byte("\n"))
	col = off - bytes.LastIndexByte(data[:off], '\n')
	return line, col
}
