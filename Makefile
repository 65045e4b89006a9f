# Drover top-level build. Every target works on a fresh machine of our kind (see README).
SHELL := /bin/bash

# Java 21+ is needed (virtual threads); the machines ship Temurin 25 beside the default JDK 17.
JAVA_HOME ?= $(firstword $(wildcard /usr/lib/jvm/temurin-25-jdk-amd64 /usr/lib/jvm/temurin-21-jdk-amd64))
export JAVA_HOME
MVN := ./mvnw -B --no-transfer-progress

IMAGE_VERSION := 0.1.0
EXECUTOR_IMAGE := localhost/drover-executor:$(IMAGE_VERSION)
EXECUTOR_IMAGE_ARCHIVE := executor-image/target/image/drover-executor.oci.tar
FLOWABLE_IMAGE := localhost/flowable-executor:$(IMAGE_VERSION)
FLOWABLE_IMAGE_ARCHIVE := flowable-executor/target/image/flowable-executor.oci.tar
# The Flowable executor plus examples/flowable-callback in /app/processes: what FlowableE2E runs.
FLOWABLE_E2E_IMAGE := localhost/flowable-executor-e2e:$(IMAGE_VERSION)
FLOWABLE_E2E_IMAGE_ARCHIVE := flowable-executor/target/image/flowable-executor-e2e.oci.tar
OPERATOR_IMAGE := localhost/drover-operator:$(IMAGE_VERSION)
OPERATOR_IMAGE_ARCHIVE := operator/target/image/drover-operator.oci.tar
# The executor image plus the fault campaign's `chaos` handler (reports every start and finish):
# what the e2e suite's fault scenarios run.
E2E_EXECUTOR_IMAGE := localhost/drover-executor-e2e:$(IMAGE_VERSION)
E2E_EXECUTOR_IMAGE_ARCHIVE := executor-image/target/image/drover-executor-e2e.oci.tar

.PHONY: help build test run bench bench-floor bench-quick bench-deps clean image image-test image-tools \
	flowable-image crds crds-check test-binaries prometheus-binaries cluster-binaries run-intro operator-image images e2e-image e2e cluster-up keda down \
	run-local bench-cluster bench-engines chaos

# Binaries built from Go modules (tools/build-binaries.sh), cached across runs and clones.
DROVER_CACHE ?= $(HOME)/.cache/drover
CRD_FILE := executorclusters.drover.io-v1.yml
GENERATED_CRD := operator/target/kubernetes/$(CRD_FILE)

help: ## List the targets
	@grep -E '^[a-z0-9-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  %-16s %s\n", $$1, $$2}'

build: ## Compile and package every module (tests skipped)
	$(MVN) -DskipTests package

test: image flowable-image test-binaries ## Run every test suite: executor (real PostgreSQL), images, operator (real kube-apiserver), CRD drift
	$(MVN) verify -Pimage-test -Dit.image.archive=$(CURDIR)/$(EXECUTOR_IMAGE_ARCHIVE) \
	  -Dit.flowable.image.archive=$(CURDIR)/$(FLOWABLE_IMAGE_ARCHIVE) -Dit.cache.dir=$(DROVER_CACHE)
	$(MAKE) --no-print-directory crds-check

test-binaries: ## Build once (cached in ~/.cache/drover): kube-apiserver, etcd, kubectl, kube-controller-manager, helm, kubeconform, promtool; KEDA CRDs
	DROVER_CACHE=$(DROVER_CACHE) tools/build-binaries.sh apiserver kube-controller-manager helm kubeconform keda-crds prometheus

prometheus-binaries: ## Build once (cached in ~/.cache/drover): prometheus and promtool (the alert tests, make e2e, make run)
	DROVER_CACHE=$(DROVER_CACHE) tools/build-binaries.sh prometheus

# The generator sorts printer columns by JSON path (Age first); CrdColumnOrder puts them in the
# order ExecutorCluster.java declares them.
ORDERED_CRD := operator/target/$(CRD_FILE)
$(ORDERED_CRD): $(GENERATED_CRD) tools/CrdColumnOrder.java operator/src/main/java/io/drover/operator/api/v1alpha1/ExecutorCluster.java
	$(JAVA_HOME)/bin/java tools/CrdColumnOrder.java operator/src/main/java/io/drover/operator/api/v1alpha1/ExecutorCluster.java \
	  $(GENERATED_CRD) > $@.tmp && mv $@.tmp $@

crds: ## Regenerate the CRD from the operator's Java model into crds/ and the Helm chart
	$(MVN) -q -DskipTests -pl operator -am package
	$(MAKE) --no-print-directory $(ORDERED_CRD)
	cp $(ORDERED_CRD) crds/$(CRD_FILE)
	cp $(ORDERED_CRD) charts/drover-operator/crds/$(CRD_FILE)

crds-check: $(ORDERED_CRD) ## Fail when the committed CRD differs from the one the build generates (run after a build)
	@for f in crds/$(CRD_FILE) charts/drover-operator/crds/$(CRD_FILE); do \
	  diff -u $$f $(ORDERED_CRD) >/dev/null || { diff -u $$f $(ORDERED_CRD) | head -40; \
	    echo "$$f is out of date with the operator's model: run 'make crds' and commit it"; exit 1; }; done
	@echo "CRDs up to date"

EXEC_CP = executor-image/target/test-classes:executor-image/target/classes:$$(cat executor-image/target/test-classpath.txt)

# What the cluster targets (run, e2e, bench-cluster) build first: everything for the local
# cluster, or only kubectl and helm when KUBECONFIG names a cluster of the user's.
CLUSTER_BINARIES := $(if $(KUBECONFIG),apiserver helm,cluster)

cluster-binaries: ## Build once (cached in ~/.cache/drover) all a local cluster needs: Kubernetes, etcd, kwok, helm, KEDA
	DROVER_CACHE=$(DROVER_CACHE) tools/build-binaries.sh $(CLUSTER_BINARIES)

run-intro:
	@echo "[run] make run: 1) Kubernetes, etcd, kwok, helm and KEDA built from Go modules (first run only),"
	@echo "[run]   2) the executor and operator images (Maven), 3) a local single-node cluster + PostgreSQL,"
	@echo "[run]   4) KEDA, 5) the operator (Helm), 6) an autoscaled ExecutorCluster, 7) an in-cluster benchmark."

run: run-intro cluster-binaries prometheus-binaries images ## The demo: local cluster (or $$KUBECONFIG's), KEDA, operator via Helm, an ExecutorCluster, an in-cluster benchmark
	DROVER_CACHE=$(DROVER_CACHE) e2e/demo.sh

run-local: ## Without Kubernetes: executor nodes on an embedded PostgreSQL with a stream of demo jobs (ARGS="--seconds=60 --lockMode=Global")
	$(MVN) -q -DskipTests -pl executor-image -am test-compile dependency:build-classpath \
	  -Dmdep.includeScope=test -Dmdep.outputFile=target/test-classpath.txt
	$(JAVA_HOME)/bin/java -Djava.util.logging.manager=org.jboss.logmanager.LogManager \
	  -cp $(EXEC_CP) io.drover.executor.demo.LocalDemo $(ARGS)

# The bench module's tool; its package writes bench/target/classpath.txt.
BENCH_TOOL = $(JAVA_HOME)/bin/java -Djava.util.logging.manager=org.jboss.logmanager.LogManager \
	  -cp bench/target/classes:$$(cat bench/target/classpath.txt) io.drover.bench.BenchTool
BENCH_REVISION = --revision=$$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
BENCH_RUN = $(BENCH_TOOL) local --executor-jar=executor-image/target/quarkus-app/quarkus-run.jar $(BENCH_REVISION)

# -am: the executor (its packaged service for the nodes, its jar for the tool) is built too.
bench-deps:
	@command -v pgbench >/dev/null || ls /usr/lib/postgresql/*/bin/pgbench >/dev/null 2>&1 || \
	  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql-15)
	$(MVN) -q -DskipTests -pl bench -am package

bench: bench-deps ## Full benchmark matrix, SQL floor, idle latency, enqueue path; writes docs/benchmarks/local.{md,json,png} (~21 min)
	$(BENCH_RUN) --command="make bench"

bench-floor: bench-deps ## The SQL floor at 1, 2 and 4 pgbench clients, interleaved (is make bench's floor its best?); writes docs/benchmarks/floor-clients.md (~1 min)
	$(BENCH_TOOL) floor-clients $(BENCH_REVISION) --command="make bench-floor"

bench-quick: bench-deps ## Short benchmark (under 2 min of runs); writes target/bench-quick/
	$(BENCH_RUN) --quick --command="make bench-quick"

chaos: ## Fault campaign: executor processes on a real PostgreSQL under kill -9, SIGSTOP, restarts, outages, a frozen server, half-open connections, poison jobs; writes docs/reliability.md (~5 min)
	$(MVN) -pl executor-image,chaos -am verify -Pchaos -Dtest=NONE -Dit.test=ChaosCampaignIT \
	  -Dsurefire.failIfNoSpecifiedTests=false -Dfailsafe.failIfNoSpecifiedTests=false

image-tools: ## Install the daemonless image tools (umoci, skopeo) from Debian if missing
	@command -v umoci >/dev/null && command -v skopeo >/dev/null || \
	  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq umoci skopeo)

image: build image-tools ## Build the executor image as an OCI archive, without a Docker engine
	@test -f executor-image/target/quarkus-app/jvm/compiler-directives.json || \
	  (echo "executor-image/target/quarkus-app/jvm/compiler-directives.json missing: the image needs its JIT directives (docs/image.md)"; exit 1)
	tools/build-image.sh executor-image/target/quarkus-app $(EXECUTOR_IMAGE_ARCHIVE) $(EXECUTOR_IMAGE)

flowable-image: build image-tools ## Build the Flowable executor image (spec.engine Flowable, docs/engines.md) as an OCI archive
	EXTRA_MODULES=java.desktop,java.scripting tools/build-image.sh flowable-executor/target/quarkus-app \
	  $(FLOWABLE_IMAGE_ARCHIVE) $(FLOWABLE_IMAGE)

operator-image: build image-tools ## Build the operator image as an OCI archive, without a Docker engine
	tools/build-image.sh operator/target/quarkus-app $(OPERATOR_IMAGE_ARCHIVE) $(OPERATOR_IMAGE)

images: image operator-image flowable-image ## Every image: the executor, the operator, the Flowable executor

e2e-image: image flowable-image ## The executor image with the chaos handler, and the Flowable executor with examples/flowable-callback, for make e2e
	tools/add-handlers.sh $(EXECUTOR_IMAGE_ARCHIVE) $(EXECUTOR_IMAGE) $(E2E_EXECUTOR_IMAGE_ARCHIVE) $(E2E_EXECUTOR_IMAGE) \
	  chaos/target/drover-chaos-*.jar
	ADD_TO=/app/processes tools/add-handlers.sh $(FLOWABLE_IMAGE_ARCHIVE) $(FLOWABLE_IMAGE) $(FLOWABLE_E2E_IMAGE_ARCHIVE) \
	  $(FLOWABLE_E2E_IMAGE) examples/flowable-callback/target/drover-example-flowable-callback-*.jar \
	  examples/flowable-callback/src/main/resources/callback.bpmn20.xml

e2e: cluster-binaries prometheus-binaries images e2e-image ## End-to-end suite on a real cluster: the local one (brought up if needed) or $$KUBECONFIG's (e2e/README.md)
	DROVER_CACHE=$(DROVER_CACHE) e2e/run.sh

cluster-up: ## Bring up the local single-node cluster + PostgreSQL (root; e2e/cluster/up.sh)
	DROVER_CACHE=$(DROVER_CACHE) e2e/cluster/up.sh

bench-cluster: cluster-binaries images ## In-cluster benchmark matrix (quick) on the local cluster; writes docs/benchmarks/cluster.{md,png}
	DROVER_CACHE=$(DROVER_CACHE) e2e/bench/local-matrix.sh $(ARGS)

bench-engines: cluster-binaries images ## Flowable's async executor beside Drover's engine on the local cluster; writes docs/benchmarks/engines.{md,png}
	DROVER_CACHE=$(DROVER_CACHE) e2e/bench/local-matrix.sh --engines $(ARGS)

keda: ## Build KEDA 2.21 from source and install it into the local cluster (e2e/keda/install.sh)
	DROVER_CACHE=$(DROVER_CACHE) e2e/keda/install.sh

down: ## Tear the local cluster down and restore the host (e2e/cluster/down.sh)
	e2e/cluster/down.sh

image-test: image ## Only the image checks: entrypoint, non-root user, no shell, runs the service
	$(MVN) -pl executor-image -am verify -Pimage-test -Dtest=NONE -Dsurefire.failIfNoSpecifiedTests=false \
	  -Dit.test=ExecutorImageIT -Dit.image.archive=$(CURDIR)/$(EXECUTOR_IMAGE_ARCHIVE)

clean: ## Remove build output
	$(MVN) -q clean
