# tests/fuzz/fuzz.mk - libFuzzer targets for every parser of outside input
# (tests/fuzz/README.md), included by the Makefile, which defines B, obj,
# archive, VP_CFLAGS and the libraries.
#
#   make fuzz FUZZ_S=60   every target for FUZZ_S seconds from its corpus;
#                         new inputs go to $(B)/fuzz/new/, never into the
#                         committed corpus; nonzero on a crash
#   make check-fuzz       every target over its corpus and regression
#                         inputs, then a short fuzz with a fixed seed (the
#                         rule is in tests/check.mk, with every check)
#
# Built with clang (libFuzzer, ASan, UBSan) into $(B)/fuzz, apart from the
# gcc build: the daemon's sources with -fsanitize=fuzzer-no-link for the
# coverage, each fz_*.c linked with -fsanitize=fuzzer for main().

FUZZ_CC ?= clang-14
FUZZ_S ?= 60
FUZZ_TARGETS := $(patsubst tests/fuzz/fz_%.c,%,\
	$(sort $(wildcard tests/fuzz/fz_*.c)))
FUZZ_SAN := -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined \
	-fno-sanitize-recover=all
FB := $(B)/fuzz/obj

.PHONY: fuzz fuzz-build

$(FB)/%.o: %.c | $(B)/gen/vp_paths.h
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(ALL_CFLAGS) $(FUZZ_SAN) -fsanitize=fuzzer-no-link \
		-MMD -MP -c -o $@ $<

$(eval $(call archive,$(FB)))

$(B)/fuzz/fz_%: $(FB)/tests/fuzz/fz_%.o $(FB)/libvpservice.a \
		$(FB)/libvphost.a $(FB)/libvpcore.a
	$(FUZZ_CC) $(FUZZ_SAN) -fsanitize=fuzzer $(LDFLAGS) -o $@ $^ \
		$(LIBS_ALL) -lpthread $(LDLIBS)

fuzz-build: $(addprefix $(B)/fuzz/fz_,$(FUZZ_TARGETS))

# clang and its libFuzzer runtime (group fuzz) are installed, if missing,
# before the build, so the build runs in a second make.

fuzz:
	sh tools/deps/install.sh fuzz
	$(MAKE) fuzz-build
	nice -n 19 sh tests/fuzz/run.sh fuzz $(B)/fuzz $(FUZZ_S) \
		$(FUZZ_TARGETS)
