package sdkserver

import (
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"strings"
)

// tinyPNG is a 1×1 PNG image.
var tinyPNG = mustBase64("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==")

func mustBase64(s string) []byte {
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		panic(err)
	}
	return b
}

// tinyWAV returns a WAV file of eight 8-bit mono samples at 8 kHz.
func tinyWAV() []byte {
	samples := []byte{128, 160, 192, 160, 128, 96, 64, 96}
	var b []byte
	le := binary.LittleEndian
	b = append(b, "RIFF"...)
	b = le.AppendUint32(b, uint32(36+len(samples)))
	b = append(b, "WAVEfmt "...)
	b = le.AppendUint32(b, 16)   // fmt chunk size
	b = le.AppendUint16(b, 1)    // PCM
	b = le.AppendUint16(b, 1)    // mono
	b = le.AppendUint32(b, 8000) // sample rate
	b = le.AppendUint32(b, 8000) // byte rate
	b = le.AppendUint16(b, 1)    // block align
	b = le.AppendUint16(b, 8)    // bits per sample
	b = append(b, "data"...)
	b = le.AppendUint32(b, uint32(len(samples)))
	return append(b, samples...)
}

// LongTextRunes is the length in runes of the long_text output.
const LongTextRunes = 12600

// longText returns LongTextRunes runes mixing one-, two-, three- and
// four-byte characters, the same on every call.
func longText() string {
	var sb strings.Builder
	runes := 0
	for i := 1; runes < LongTextRunes; i++ {
		line := fmt.Sprintf("%04d café 漢字 🙂 — ligne déterministe ✓\n", i)
		for _, r := range line {
			if runes == LongTextRunes {
				break
			}
			sb.WriteRune(r)
			runes++
		}
	}
	return sb.String()
}
