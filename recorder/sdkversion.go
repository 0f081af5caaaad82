package recorder

import "runtime/debug"

// GoSDKModule is the module path of the go-sdk.
const GoSDKModule = "github.com/modelcontextprotocol/go-sdk"

// GoSDKFallbackVersion is the go-sdk version this module requires (go.mod),
// used when the build carries no module information.
const GoSDKFallbackVersion = "v1.8.0"

// GoSDK returns the module path and version of the go-sdk linked into this
// binary, from its build information, else GoSDKFallbackVersion.
func GoSDK() (module, version string) {
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, d := range info.Deps {
			if d.Path == GoSDKModule {
				if d.Replace != nil && d.Replace.Version != "" {
					return GoSDKModule, d.Replace.Version
				}
				if d.Version != "" && d.Version != "(devel)" {
					return GoSDKModule, d.Version
				}
			}
		}
	}
	return GoSDKModule, GoSDKFallbackVersion
}
