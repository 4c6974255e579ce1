# gamebot - one Makefile for the whole tree (no recursive make).
#
#   make                 build bin/gamebot
#   make run             build and run the service (console chat without tokens)
#   make test            build and run every cmocka suite (tests/pg.sh starts a
#                        throwaway PostgreSQL server unless GAMEBOT_TEST_PG names one)
#   make SANITIZE=address,undefined test   the same under ASan and UBSan
#   make bench           the computer players' arena rows
#   make check           layering and banned-call checks
#
# Missing Debian packages are installed by config/deps.sh before anything is
# compiled. Objects live under build/ (build/san-<list> for sanitized builds),
# so a sanitized and a plain build never mix.

ifeq ($(filter clean,$(MAKECMDGOALS)),)
DEPS_OK := $(shell sh config/deps.sh 1>&2 && echo yes)
ifneq ($(DEPS_OK),yes)
$(error dependencies missing: see the messages above)
endif
endif

# (defined before the build directory below is named from SANITIZE's list)
comma := ,
PKGS := libcurl jansson libmicrohttpd sqlite3 libsodium libpq
CC ?= cc
SANITIZE ?=

ifeq ($(SANITIZE),)
BUILD ?= build
OPT := -O2
else
BUILD ?= build/san-$(subst $(comma),-,$(SANITIZE))
OPT := -O1 -fno-omit-frame-pointer -fsanitize=$(SANITIZE) -fno-sanitize-recover=all
endif
# bin/gamebot is the plain default build; any other build keeps its binary inside.
ifeq ($(BUILD),build)
BIN := bin/gamebot
else
BIN := $(BUILD)/gamebot
endif

CFLAGS := -std=c11 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE -g $(OPT) \
	-Wall -Wextra -Werror -Wshadow -Wno-missing-field-initializers \
	-MMD -MP $(shell pkg-config --cflags $(PKGS)) -I.
LDFLAGS := $(if $(SANITIZE),-fsanitize=$(SANITIZE))
LDLIBS := $(shell pkg-config --libs $(PKGS)) -lpthread -lm
TEST_LDLIBS := $(shell pkg-config --libs cmocka)

LIB_SRC := $(sort $(wildcard games/*.c games/ai/*.c store/*.c adapters/*.c bot/*.c))
LIB_SRC := $(filter-out adapters/main.c,$(LIB_SRC))
LIB_OBJ := $(LIB_SRC:%.c=$(BUILD)/%.o)
MAIN_OBJ := $(BUILD)/adapters/main.o
# SUITES="test_ludo test_script" runs only those suites.
SUITES ?=
TEST_SRC := $(if $(SUITES),$(SUITES:%=tests/%.c),$(sort $(wildcard tests/test_*.c)))
TEST_BIN := $(TEST_SRC:tests/%.c=$(BUILD)/tests/%)
TEST_HELP_SRC := $(sort $(filter-out tests/test_%,$(wildcard tests/*.c)))
TEST_HELP_OBJ := $(TEST_HELP_SRC:%.c=$(BUILD)/%.o)
LIB := $(BUILD)/libgamebot.a
# Benchmark programs: tests/bench/NAME.c -> $(BUILD)/bench/NAME
BENCH_SRC := $(sort $(wildcard tests/bench/*.c))
BENCH_BIN := $(BENCH_SRC:tests/bench/%.c=$(BUILD)/bench/%)
# The crash harness: tests/crash/harness.c -> $(BUILD)/crash/harness
CRASH_BIN := $(BUILD)/crash/harness
# `make crashtest` runs it at full size; CI passes a short size here.
CRASHTEST_ARGS ?=

.PHONY: all run test bench arena crashtest check clean
.SECONDARY:
all: $(BIN)

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -c -o $@ $<

$(LIB): $(LIB_OBJ)
	@mkdir -p $(dir $@)
	rm -f $@
	ar rcs $@ $^

$(BIN): $(MAIN_OBJ) $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $(MAIN_OBJ) $(LIB) $(LDLIBS)

$(BUILD)/tests/%: $(BUILD)/tests/%.o $(TEST_HELP_OBJ) $(LIB)
	$(CC) $(LDFLAGS) -o $@ $< $(TEST_HELP_OBJ) $(LIB) $(TEST_LDLIBS) $(LDLIBS)

$(BUILD)/bench/%: $(BUILD)/tests/bench/%.o $(TEST_HELP_OBJ) $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $< $(TEST_HELP_OBJ) $(LIB) $(LDLIBS)

$(BUILD)/crash/%: $(BUILD)/tests/crash/%.o $(TEST_HELP_OBJ) $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $< $(TEST_HELP_OBJ) $(LIB) $(LDLIBS)

run: $(BIN)
	$(BIN) serve

test: $(BIN) $(TEST_BIN)
	@GAMEBOT_BIN=$(BIN) GAMEBOT_SRC=$(CURDIR) sh tests/pg.sh sh tests/run-suites.sh $(TEST_BIN)

bench arena: $(BIN) $(BENCH_BIN)
	BENCH_BIN_DIR=$(BUILD)/bench sh tests/bench.sh $(BIN)

# The service SIGKILLed at random while 200 chats play, then every promise
# checked (tests/crash/harness.c); prints its seed and counts.
crashtest: $(BIN) $(CRASH_BIN)
	$(CRASH_BIN) --bin $(BIN) $(CRASHTEST_ARGS)

# Layers only look down: games/ < store/ < bot/ < adapters/ (adapters/main.c
# is the composition root). games/ also does no I/O.
check:
	@! grep -rnE '#include *"(\.\./)*(bot|adapters|store)/' games || { echo "games/ must not include higher layers"; exit 1; }
	@! grep -rnE '#include *"(\.\./)*(bot|adapters)/' store || { echo "store/ must not include bot/ or adapters/"; exit 1; }
	@! grep -rnE '#include *"(\.\./)*adapters/' bot || { echo "bot/ must not include adapters/"; exit 1; }
	@! grep -rnE '\b(fopen|printf|fprintf|puts|curl_|sqlite3_|MHD_)\w*\(' games --include='*.c' || { echo "games/ must do no I/O"; exit 1; }
	@! grep -rnE '\b(strcpy|strcat|sprintf|strtok|atoi|atol|sscanf|gets)\(' bot games adapters store --include='*.c' --include='*.h' || { echo "banned call"; exit 1; }
	@echo "check: ok"

clean:
	rm -rf build bin

-include $(LIB_OBJ:.o=.d) $(MAIN_OBJ:.o=.d) $(TEST_BIN:=.d) $(TEST_HELP_OBJ:.o=.d) $(BENCH_BIN:%=$(BUILD)/tests/bench/%.d) $(BUILD)/tests/crash/harness.d
