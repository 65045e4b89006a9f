# Drover top-level build. Every target works on a fresh machine of our kind (see README).
SHELL := /bin/bash

# Java 21+ is needed (virtual threads); the machines ship Temurin 25 beside the default JDK 17.
JAVA_HOME ?= $(firstword $(wildcard /usr/lib/jvm/temurin-25-jdk-amd64 /usr/lib/jvm/temurin-21-jdk-amd64))
export JAVA_HOME
MVN := ./mvnw -B --no-transfer-progress

.PHONY: help build test unit-test run bench clean

help: ## List the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  %-12s %s\n", $$1, $$2}'

build: ## Compile and package every module (tests skipped)
	$(MVN) -DskipTests package

test: ## Run every test suite (unit, integration against real PostgreSQL)
	$(MVN) verify

EXEC_CP = executor-image/target/test-classes:executor-image/target/classes:$$(cat executor-image/target/test-classpath.txt)

run: ## Local demo: executor nodes on an embedded PostgreSQL with a stream of demo jobs (ARGS="--seconds=60 --lockMode=Global")
	$(MVN) -q -DskipTests -pl executor-image -am test-compile dependency:build-classpath \
	  -Dmdep.includeScope=test -Dmdep.outputFile=target/test-classpath.txt
	$(JAVA_HOME)/bin/java -Djava.util.logging.manager=org.jboss.logmanager.LogManager \
	  -cp $(EXEC_CP) io.drover.executor.demo.LocalDemo $(ARGS)

bench: ## Benchmark matrix (see docs/benchmarks); not yet implemented
	@echo "make bench: the benchmark matrix is tracked in issue 4 and not implemented yet" >&2; exit 1

clean: ## Remove build output
	$(MVN) -q clean
