# gamebot - one Makefile for the whole tree (no recursive make).
#
#   make                 build bin/gamebot
#   make run             build and run the service (console chat without tokens)
#   make test            build and run every cmocka suite (tests/pg.sh starts a
#                        throwaway PostgreSQL server unless GAMEBOT_TEST_PG names one)
#   make test-long       the same with the slow suites at their full sizes
#   make test-build      build the suites without running them
#   make SANITIZE=address,undefined test   the same under ASan and UBSan
#   make SANITIZE=thread test-threads      the suites with threads under ThreadSanitizer
#   make bench           the computer players' arena rows
#   make train-ludo      retrain the learned Ludo evaluation (games/ai/ludo_weights.h)
#   make train-callbreak retrain the learned Call Break networks (games/ai/callbreak_weights.h)
#   make check           layering, banned-call and message-argument checks
#   make fuzz            every libFuzzer target for FUZZ_SECONDS (300) each
#   make fuzz-smoke      the same for FUZZ_SMOKE_SECONDS (20) each (CI)
#                        (FUZZ_JOBS targets at once, default 1; CI runs 2)
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

# The compile-time shape of every message key, written by bot/gen/msgfmt.c
# from the catalogues (bot/lang/i18n.h tells how calls are checked against it);
# one copy for every build, sanitized or not. The generator refuses
# catalogues whose translations take other arguments than English.
MSG_GEN := build/gen/msgfmt
MSG_FMT := build/gen/msg_fmt.h
CFLAGS := -std=c11 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE -g $(OPT) \
	-Wall -Wextra -Werror -Wshadow -Wno-missing-field-initializers \
	-MMD -MP $(shell pkg-config --cflags $(PKGS)) -I. -I$(dir $(MSG_FMT))
LDFLAGS := $(if $(SANITIZE),-fsanitize=$(SANITIZE))
LDLIBS := $(shell pkg-config --libs $(PKGS)) -lpthread -lm
TEST_LDLIBS := $(shell pkg-config --libs cmocka)

# bot/'s rooms, from the ground up (make check holds them to this order);
# tools/ stands apart on games/ and store/.
BOT_ROOMS := base lang render context commands core tools
LIB_SRC := $(sort $(wildcard games/*.c games/ai/*.c games/rows/*.c store/*.c adapters/*.c adapters/*/*.c bot/*.c $(BOT_ROOMS:%=bot/%/*.c)))
LIB_SRC := $(filter-out adapters/main.c,$(LIB_SRC))
LIB_OBJ := $(LIB_SRC:%.c=$(BUILD)/%.o)
MAIN_OBJ := $(BUILD)/adapters/main.o
# SUITES="test_ludo test_script" runs only those suites.
SUITES ?=
TEST_SRC := $(if $(SUITES),$(SUITES:%=tests/%.c),$(sort $(wildcard tests/test_*.c)))
TEST_BIN := $(TEST_SRC:tests/%.c=$(BUILD)/tests/%)
# Games only the tests play (tests/games/: each file a whole game, its row
# included) link into every suite like the helpers; they exist for a suite
# that registers them.
TEST_GAME_SRC := $(sort $(filter-out tests/games/service.c,$(wildcard tests/games/*.c)))
# Platforms only the tests know (tests/platforms/: each file a whole
# adapter) link into every suite the same way.
TEST_PLATFORM_SRC := $(sort $(wildcard tests/platforms/*.c))
TEST_HELP_SRC := $(sort $(filter-out tests/test_%,$(wildcard tests/*.c))) $(TEST_GAME_SRC) $(TEST_PLATFORM_SRC)
TEST_HELP_OBJ := $(TEST_HELP_SRC:%.c=$(BUILD)/%.o)
# The service with those games added (tests/games/service.c), for the
# suites that play them through the real binary.
GAMES_BIN := $(BUILD)/tests/games/gamebot
LIB := $(BUILD)/libgamebot.a
# Benchmark programs: tests/bench/NAME.c -> $(BUILD)/bench/NAME
BENCH_SRC := $(sort $(wildcard tests/bench/*.c))
BENCH_BIN := $(BENCH_SRC:tests/bench/%.c=$(BUILD)/bench/%)
# The crash harness: tests/crash/harness.c -> $(BUILD)/crash/harness
CRASH_BIN := $(BUILD)/crash/harness
# `make crashtest` runs it at full size; CI passes a short size here.
CRASHTEST_ARGS ?=

.PHONY: all run test test-build test-long test-threads test-threads-build bench arena train-ludo train-callbreak crashtest check clean fuzz fuzz-smoke fuzz-build fuzz-cc
.SECONDARY:
all: $(BIN)

$(BUILD)/%.o: %.c | $(MSG_FMT)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -c -o $@ $<

$(MSG_GEN): bot/gen/msgfmt.c bot/lang/msg_en.c bot/lang/msg_ne.c bot/lang/i18n.h
	@mkdir -p $(dir $@)
	$(CC) -std=c11 -Wall -Wextra -Werror -DGB_MSG_GEN -I. -o $@ bot/gen/msgfmt.c bot/lang/msg_en.c bot/lang/msg_ne.c

# Replaced only when it changes: a new wording recompiles nothing else.
$(MSG_FMT): $(MSG_GEN)
	@$(MSG_GEN) > $@.tmp || { rm -f $@.tmp; exit 1; }
	@cmp -s $@.tmp $@ || mv $@.tmp $@; rm -f $@.tmp

$(LIB): $(LIB_OBJ)
	@mkdir -p $(dir $@)
	rm -f $@
	ar rcs $@ $^

$(BIN): $(MAIN_OBJ) $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $(MAIN_OBJ) $(LIB) $(LDLIBS)

$(BUILD)/tests/%: $(BUILD)/tests/%.o $(TEST_HELP_OBJ) $(LIB)
	$(CC) $(LDFLAGS) -o $@ $< $(TEST_HELP_OBJ) $(LIB) $(TEST_LDLIBS) $(LDLIBS)

$(GAMES_BIN): $(BUILD)/tests/games/service.o $(TEST_GAME_SRC:%.c=$(BUILD)/%.o) $(LIB)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(BUILD)/bench/%: $(BUILD)/tests/bench/%.o $(TEST_HELP_OBJ) $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $< $(TEST_HELP_OBJ) $(LIB) $(LDLIBS)

$(BUILD)/crash/%: $(BUILD)/tests/crash/%.o $(TEST_HELP_OBJ) $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $< $(TEST_HELP_OBJ) $(LIB) $(LDLIBS)

run: $(BIN)
	$(BIN) serve

# GAMEBOT_CACHE_CHECK: every command also reads from the store what its
# decoded-state cache handed it, and the process stops at a difference.
# GAMEBOT_TEST_SIZE: the slow suites play fewer games (or rounds) than
# their full size unless it is "full" (make test-long); every assertion
# is made at either size.
test-build: $(BIN) $(TEST_BIN) $(GAMES_BIN)

test: test-build
	@GAMEBOT_CACHE_CHECK=1 GAMEBOT_BIN=$(BIN) GAMEBOT_GAMES_BIN=$(GAMES_BIN) GAMEBOT_SRC=$(CURDIR) sh tests/pg.sh sh tests/run-suites.sh $(TEST_BIN)

test-long:
	@GAMEBOT_TEST_SIZE=full $(MAKE) --no-print-directory test

# The suites whose code runs on several threads (the listener's workers,
# the outbox workers, the adapters' pollers, the store's checkpointer),
# meant for SANITIZE=thread. Every process stops at its first report,
# suites and the services they start alike, and writes it under
# $(BUILD)/tsan/: any report there fails the run, shown in full.
# tests/tsan.supp lists only libraries' own known false positives.
THREAD_SUITES ?= test_router test_outbox test_http test_telegram test_discord test_store_contract
test-threads-build:
	@$(MAKE) --no-print-directory SUITES="$(THREAD_SUITES)" test-build

test-threads:
	@rm -rf $(BUILD)/tsan && mkdir -p $(BUILD)/tsan
	@TSAN_OPTIONS="halt_on_error=1 exitcode=66 second_deadlock_stack=1 suppressions=$(CURDIR)/tests/tsan.supp log_path=$(CURDIR)/$(BUILD)/tsan/report $${TSAN_OPTIONS:-}" \
		$(MAKE) --no-print-directory SUITES="$(THREAD_SUITES)" test; rc=$$?; \
	if ls $(BUILD)/tsan/report.* >/dev/null 2>&1; then \
		cat $(BUILD)/tsan/report.*; echo "test-threads: ThreadSanitizer reported the races above"; exit 1; \
	fi; exit $$rc

bench arena: $(BIN) $(BENCH_BIN)
	BENCH_BIN_DIR=$(BUILD)/bench sh tests/bench.sh $(BIN)

# The learned Ludo evaluation, trained by self-play from a fixed seed
# (tests/bench/ludotrain.c); at low priority, it says how long it took.
LUDO_TRAIN_GAMES ?= 200000
LUDO_TRAIN_SEED ?= 1
train-ludo: $(BUILD)/bench/ludotrain
	nice -n 19 $(BUILD)/bench/ludotrain $(LUDO_TRAIN_GAMES) $(LUDO_TRAIN_SEED) games/ai/ludo_weights.h

# The learned Call Break networks: self-play data of the current players,
# then training (tests/bench/cbtrain.sh says how, and how long each step took).
train-callbreak: $(BUILD)/bench/cbdata
	sh tests/bench/cbtrain.sh $(BUILD)/bench/cbdata games/ai/callbreak_weights.h

# The service SIGKILLed at random while 200 chats play, then every promise
# checked (tests/crash/harness.c); prints its seed and counts.
crashtest: $(BIN) $(CRASH_BIN)
	$(CRASH_BIN) --bin $(BIN) $(CRASHTEST_ARGS)

# Layers only look down: games/ < store/ < bot/ < adapters/ (adapters/main.c
# is the composition root). games/ also does no I/O. Inside bot/ the rooms
# do the same: base/ < lang/ < render/ < the shared headers (bot.h,
# commands.h, internal.h) < context/ < commands/ < core/, each including
# only what stands below it (by its path from the top, never ../); tools/
# stands on games/ and store/ alone. Only core/ (the scheduler, the
# matcher) hands commands to bot_handle(): no command calls back up into
# the router. Every message call's arguments fit its key: msg_fmt.h, made
# first, refuses translations that take other arguments; the compiler
# checks the calls, which must be the checked forms of bot/lang/i18n.h;
# tests/msgcheck/run.sh shows it refusing wrong ones, and finds a text
# with arguments used as it is. A platform's folder (adapters/NAME/) keeps
# its internal.h to itself (and its fuzz target), and the delivery policy
# above the platforms includes none of them.
check: $(MSG_FMT)
	@! grep -rnE '#include *"(\.\./)*(bot|adapters|store)/' games || { echo "games/ must not include higher layers"; exit 1; }
	@! grep -rnE '#include *"(\.\./)*(bot|adapters)/' store || { echo "store/ must not include bot/ or adapters/"; exit 1; }
	@! grep -rnE '#include *"(\.\./)*adapters/' bot || { echo "bot/ must not include adapters/"; exit 1; }
	@! grep -rnE '#include *"\.\./' bot || { echo "bot/ includes by the path from the top, never ../"; exit 1; }
	@! grep -rnE '#include *"bot/' bot/base || { echo "bot/base/ must include nothing else of bot/"; exit 1; }
	@! grep -rnE '#include *"bot/' bot/lang | grep -vE '"bot/base/' || { echo "bot/lang/ stands on bot/base/ alone"; exit 1; }
	@! grep -rnE '#include *"bot/' bot/render | grep -vE '"bot/(base|lang)/' || { echo "bot/render/ stands on bot/base/ and bot/lang/ alone"; exit 1; }
	@! grep -nE '#include *"bot/' bot/*.h | grep -vE '"bot/(base|lang|render)/' || { echo "bot/'s shared headers stand on bot/base/, bot/lang/ and bot/render/ alone"; exit 1; }
	@! grep -rnE '#include *"bot/' bot/context | grep -vE '"bot/(base/|lang/|render/|bot\.h|internal\.h)' || { echo "bot/context/ must not include bot/commands/, bot/core/ or bot/tools/"; exit 1; }
	@! grep -rnE '#include *"bot/' bot/commands | grep -vE '"bot/(base/|lang/|render/|context/|tools/|bot\.h|commands\.h|internal\.h)' || { echo "bot/commands/ must not include bot/core/"; exit 1; }
	@! grep -rnE '#include *"bot/' bot/tools | grep -vE '"bot/tools/' || { echo "bot/tools/ stands on games/ and store/ alone"; exit 1; }
	@! grep -rnE '\bbot_handle\(' bot --include='*.c' | grep -v '^bot/core/' || { echo "only bot/core/ hands commands to bot_handle()"; exit 1; }
	@for d in adapters/*/; do p=$${d%/}; ! grep -rlE "#include *\"$$p/internal\.h\"" bot games store adapters tests | grep -vE "^$$p/|^tests/fuzz/$${p#adapters/}\.c$$" || { echo "$$p/internal.h is for the files of $$p/ alone"; exit 1; }; done
	@for d in adapters/*/; do p=$$(basename $$d); ! grep -nE "#include *\"(adapters/)?$$p(\.h\"|/)" adapters/deliver.[ch] adapters/outbox.[ch] || { echo "the shared delivery (adapters/deliver.c, outbox.c) names no platform"; exit 1; }; done
	@! grep -rnE '\b(fopen|printf|fprintf|puts|curl_|sqlite3_|MHD_)\w*\(' games --include='*.c' || { echo "games/ must do no I/O"; exit 1; }
	@! grep -rnE '\b(strcpy|strcat|sprintf|strtok|atoi|atol|sscanf|gets)\(' bot games adapters store --include='*.c' --include='*.h' || { echo "banned call"; exit 1; }
	@! grep -nE 'struct callbreak([^_[:alnum:]]|$$)|callbreak_turn\(' games/ai/*.c games/ai/*.h || { echo "the Call Break players read the view, never the state"; exit 1; }
	@! grep -rlE '#include *"(.*/)?callbreak_oracle\.h"' bot games adapters store tests | grep -vxE 'games/ai/callbreak_ai\.c|games/ai/callbreak_learned\.c|tests/bench/cbparts\.c|tests/bench/cbdata\.c|tests/test_callbreak_search\.c' || { echo "callbreak_oracle.h is for the measurements alone"; exit 1; }
	@! grep -rnE '(sb_addtr|sb_vaddf|printf|i18n_v?format)\([^"]*\btr\(' bot adapters --include='*.c' --include='*.h' | grep -vE 'tr\([^()]*, key\), ap\)|tr\(\(lang\), \(key\)\)' || { echo "a catalogue text is formatted through the checked forms of bot/lang/i18n.h"; exit 1; }
	@sh tests/msgcheck/run.sh $(dir $(MSG_FMT)) $(CC) $(filter-out -MMD -MP,$(CFLAGS))
	@! grep -rnE 'rm -r[f]* .%s' tests --include='*.c' || { echo "tests remove their folders with fixture_rm() (tests/fixture.c), never a shell"; exit 1; }
	@echo "check: ok"

# Fuzzing: tests/fuzz/NAME.c is a libFuzzer target, tests/fuzz/NAME/ its seed
# corpus. Built with clang under libFuzzer, ASan and UBSan into build/fuzz/
# (library included), so the normal and sanitized builds are never touched.
# Each target runs FUZZ_SECONDS on a scratch copy of its corpus (the
# checked-in seeds stay small and readable), joined by the inputs of the
# suites' corpus files (tests/data/NAME/*.json) when there are any; a
# crash stops the run with the input saved as build/fuzz/run/NAME/crash-*
# and `make` failing. FUZZ_JOBS targets run at once (each on one core).
FUZZ_CC ?= clang
FUZZ_SECONDS ?= 300
FUZZ_BUILD := build/fuzz
FUZZ_FLAGS := -g -O1 -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=all
FUZZ_CFLAGS := $(filter-out -O2 -MMD -MP,$(CFLAGS)) $(FUZZ_FLAGS) -MMD -MP
FUZZ_SRC := $(sort $(wildcard tests/fuzz/*.c))
FUZZ_NAMES := $(FUZZ_SRC:tests/fuzz/%.c=%)
FUZZ_BIN := $(FUZZ_NAMES:%=$(FUZZ_BUILD)/%)
FUZZ_LIB_OBJ := $(LIB_SRC:%.c=$(FUZZ_BUILD)/%.o)
FUZZ_LIB := $(FUZZ_BUILD)/libgamebot.a
# Seeds from the suites' corpus files (tests/data/NAME/*.json) join NAME's own.
FUZZ_SEEDS := $(FUZZ_BUILD)/corpus-seeds

fuzz-cc:
	@command -v $(FUZZ_CC) >/dev/null 2>&1 || { echo "make fuzz needs $(FUZZ_CC) with libFuzzer: apt-get install clang"; exit 1; }

$(FUZZ_BUILD)/%.o: %.c | fuzz-cc $(MSG_FMT)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -c -o $@ $<

$(FUZZ_LIB): $(FUZZ_LIB_OBJ)
	rm -f $@
	ar rcs $@ $^

$(FUZZ_BUILD)/%: $(FUZZ_BUILD)/tests/fuzz/%.o $(FUZZ_LIB)
	$(FUZZ_CC) $(FUZZ_FLAGS) -fsanitize=fuzzer -o $@ $< $(FUZZ_LIB) $(LDLIBS)

$(FUZZ_SEEDS): tests/fuzz/tools/corpus_seeds.c | fuzz-cc
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -o $@ $< $(LDLIBS)

fuzz-build: $(FUZZ_BIN) $(FUZZ_SEEDS)

fuzz: $(FUZZ_BIN) $(FUZZ_SEEDS)
	@FUZZ_SECONDS=$(FUZZ_SECONDS) FUZZ_BUILD=$(FUZZ_BUILD) sh tests/fuzz/run.sh $(FUZZ_NAMES)

FUZZ_SMOKE_SECONDS ?= 20
fuzz-smoke: $(FUZZ_BIN) $(FUZZ_SEEDS)
	@FUZZ_SECONDS=$(FUZZ_SMOKE_SECONDS) FUZZ_BUILD=$(FUZZ_BUILD) sh tests/fuzz/run.sh $(FUZZ_NAMES)

clean:
	rm -rf build bin

-include $(FUZZ_LIB_OBJ:.o=.d) $(FUZZ_SRC:tests/fuzz/%.c=$(FUZZ_BUILD)/tests/fuzz/%.d)
-include $(LIB_OBJ:.o=.d) $(MAIN_OBJ:.o=.d) $(TEST_BIN:=.d) $(TEST_HELP_OBJ:.o=.d) $(BENCH_SRC:%.c=$(BUILD)/%.d) $(BUILD)/tests/crash/harness.d $(BUILD)/tests/games/service.d
