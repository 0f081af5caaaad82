package impl

import (
	"path/filepath"
	"strings"
	"time"
)

// Default connect timeouts (P3).
const (
	DefaultConnectTimeout  = 20 * time.Second
	LauncherConnectTimeout = 3 * time.Minute
	// DefaultCallTimeout bounds a call with its one retry (P10).
	DefaultCallTimeout = 120 * time.Second
)

// Launcher returns "npx" or "uvx" when the command's base name (the
// platform's filepath.Base, lowercased, ".exe" then ".cmd" trimmed) is one
// of them, else "" (P3).
func Launcher(command string) string {
	base := strings.ToLower(filepath.Base(command))
	base = strings.TrimSuffix(strings.TrimSuffix(base, ".exe"), ".cmd")
	if base == "npx" || base == "uvx" {
		return base
	}
	return ""
}

// ConnectTimeout implements P3: 3 min for npx/uvx (first download), 20 s
// otherwise.
func ConnectTimeout(command string) time.Duration {
	if Launcher(command) != "" {
		return LauncherConnectTimeout
	}
	return DefaultConnectTimeout
}

// TimeoutMessage implements P4: the error shown when the handshake's
// deadline passes.
func TimeoutMessage(command string) string {
	if l := Launcher(command); l != "" {
		return "délai dépassé — " + l + " télécharge le paquet du serveur au premier lancement, ce qui peut être long ; clique « tester » pour réessayer (le paquet reste en cache), et vérifie que le conteneur atteint le registre (npm/PyPI)"
	}
	return "délai dépassé — le serveur n'a pas répondu au handshake en 20s"
}
