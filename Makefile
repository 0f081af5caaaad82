SHELL := /bin/bash
GO ?= go
BIN ?= bin/mcpparity

IMAGE ?= mcpparity-ref:latest

.PHONY: build test check vet image docker-test mutate

build:
	CGO_ENABLED=0 $(GO) build -o $(BIN) ./cmd/mcpparity

# go.mod and go.sum must be tidy: go mod tidy -diff prints what it would
# change and fails.
vet:
	$(GO) mod tidy -diff
	$(GO) vet ./...

# The test command of the README and of CI: every package under the race
# detector, never from the test cache, with a line for each package and
# top-level test as it ends (cmd/testprogress) and the whole output of
# what fails.
test: vet
	set -o pipefail; $(GO) test -race -count=1 -timeout 20m -json ./... | $(GO) run ./cmd/testprogress

# The main job: the conformance check against the embedded reference.
check:
	$(GO) run ./cmd/mcpparity check

# The reference pool as an image FROM scratch: the static binary only,
# nothing pulled (docker/Dockerfile; the build context is bin/).
image:
	CGO_ENABLED=0 $(GO) build -o $(BIN) ./cmd/mcpparity
	docker build -q -t $(IMAGE) -f docker/Dockerfile $(dir $(BIN))

# The full check against that image, one container per scenario on the host
# network (the static $(BIN) is the harness: its folder is mounted in the
# container, where the stdio replays run), then the docker tests.
docker-test: image
	$(BIN) check --target image:$(IMAGE)
	$(GO) test -race -count=1 -run Docker ./cmd/mcpparity/cli

# Every rule mutant of mutations/rules must be killed by the suite: check
# against the reference with the mutant in (impl's tests: a second verdict).
mutate: build
	$(BIN) mutate --json mutate-report.json
