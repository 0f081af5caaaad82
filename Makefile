GO ?= go
BIN ?= bin/mcpparity

.PHONY: build test check vet race

build:
	CGO_ENABLED=0 $(GO) build -o $(BIN) ./cmd/mcpparity

vet:
	$(GO) vet ./...

# The test command of the README and of CI.
test: vet
	$(GO) test -race -timeout 20m ./...

# The main job: the conformance check against the embedded reference.
check:
	$(GO) run ./cmd/mcpparity check
