package cli

import (
	"flag"
	"fmt"

	"github.com/mcpparity/mcpparity/fixtures"
	"github.com/mcpparity/mcpparity/internal/scripted"
	"github.com/mcpparity/mcpparity/internal/sdkserver"
	"github.com/mcpparity/mcpparity/recorder"
)

// serverFlags are the flags record-proxy and record-suite share: the
// server to record, its SDK, and the secrets never to write.
type serverFlags struct {
	upstream, upstreamCmd *string
	sdkModule, sdkVersion *string
	secrets, secretEnv    listFlag
	secretPatterns        listFlag
}

// secretsNote says, in the usage of record-proxy and record-suite, what
// becomes of the secrets.
const secretsNote = `Secrets (--secret, the value of each --secret-env variable, every match of
each --secret-pattern) are written as ` + fixtures.SecretPlaceholder + ` wherever they occur, in
any encoding; the closing lines say how many values were replaced, never which.`

func declareServerFlags(fs *flag.FlagSet) *serverFlags {
	s := &serverFlags{}
	s.upstream = fs.String("upstream", "", "`URL` of the server's Streamable HTTP endpoint")
	s.upstreamCmd = fs.String("upstream-cmd", "", "`command` line of a stdio server")
	s.sdkModule = fs.String("sdk-module", "", "the server's SDK, written to manifest.sdkModule and shown in the closing line, nothing else: the replay\n"+
		"never reads it (the server's own identity is manifest.server, from its serverInfo). Default: the go-sdk\n"+
		"linked into this binary when the server announces itself as "+sdkserver.Name+", else empty (unknown)")
	s.sdkVersion = fs.String("sdk-version", "", "the SDK's version, written to manifest.sdkVersion (default: as for --sdk-module)")
	fs.Var(&s.secrets, "secret", "a `secret` value never to be written, e.g. a configured env value (repeatable)")
	fs.Var(&s.secretEnv, "secret-env", "the `NAME` of an environment variable whose value is a secret (refused when unset; repeatable)")
	fs.Var(&s.secretPatterns, "secret-pattern", "a regular `expression` whose every match in the traffic is a secret (repeatable)")
	return s
}

// secretValues are the values of --secret and of the variables named by
// --secret-env.
func (s *serverFlags) secretValues() ([]string, error) {
	env, err := recorder.SecretsFromEnv(s.secretEnv)
	if err != nil {
		return nil, fmt.Errorf("--secret-env: %w", err)
	}
	return append(append([]string(nil), s.secrets...), env...), nil
}

// suiteSecrets are the secrets given to record-suite.
func (s *serverFlags) suiteSecrets() (scripted.Secrets, error) {
	values, err := s.secretValues()
	if err != nil {
		return scripted.Secrets{}, err
	}
	if _, err := recorder.CompileSecretPatterns(s.secretPatterns); err != nil {
		return scripted.Secrets{}, fmt.Errorf("--secret-pattern: %w", err)
	}
	return scripted.Secrets{Values: values, Patterns: s.secretPatterns}, nil
}
