# hytune build.  ./configure writes config.mk; `make` builds
#   build/lib/libhytune.so, build/lib/libhytune.a   (MPICH)
#   build/lib/libhytune-smpi.a                      (SimGrid SMPI, if found)
#   build/bin/hytune, build/bin/hytune-smpi         (the command)
#   build/bin/hytune-smpicc, hytune-smpicxx,
#   build/bin/hytune-smpif90                        (compile any MPI program for simulation)
ifeq ($(wildcard config.mk),)
$(error run ./configure first (./configure --help))
endif
include config.mk

B ?= build
# src/smpi_*.c: SimGrid only (Fortran entry points SMPI's own bindings would bypass)
SMPI_ONLY_SRC := $(wildcard src/smpi_*.c)
LIBSRC := $(filter-out $(SMPI_ONLY_SRC),$(wildcard src/*.c algorithms/*.c algorithms/*/*.c topology/*.c online/*.c))
TOOLSRC := tools/hytune.c $(wildcard offline/*.c)
HDRS := $(wildcard src/*.h algorithms/*.h topology/*.h online/*.h offline/*.h)
INC := -I. $(JSON_CFLAGS) $(HWLOC_CFLAGS)
LIBS := $(JSON_LIBS) $(HWLOC_LIBS) -lpthread -lm

MPI_OBJ := $(LIBSRC:%.c=$(B)/mpich/%.o)
TOOL_OBJ := $(TOOLSRC:%.c=$(B)/mpich/%.o)
SMPI_OBJ := $(LIBSRC:%.c=$(B)/smpi/%.o) $(SMPI_ONLY_SRC:%.c=$(B)/smpi/%.o)
SMPI_TOOL_OBJ := $(TOOLSRC:%.c=$(B)/smpi/%.o)

TARGETS := $(B)/lib/libhytune.so $(B)/lib/libhytune.a $(B)/bin/hytune
ifneq ($(SMPICC),)
TARGETS += $(B)/lib/libhytune-smpi.a $(B)/bin/hytune-smpicc $(B)/bin/hytune-smpi
SMPI_WRAPPERS := $(B)/bin/hytune-smpicc $(if $(SMPICXX),$(B)/bin/hytune-smpicxx) $(if $(SMPIF90),$(B)/bin/hytune-smpif90)
TARGETS += $(SMPI_WRAPPERS)
endif

all: $(TARGETS)

$(B)/mpich/%.o: %.c $(HDRS) config.mk
	@mkdir -p $(dir $@)
	$(MPICC) $(CFLAGS) $(SANITIZE) -fPIC $(INC) -c $< -o $@

$(B)/smpi/%.o: %.c $(HDRS) config.mk
	@mkdir -p $(dir $@)
	@rm -f $@; SMPI_PRETEND_CC=1 $(SMPICC) $(CFLAGS) -DHYT_SMPI=1 $(INC) -c $< -o $@ 2>&1 | grep -v 'SMPI_PRETEND_CC' >&2; test -f $@

# The shared library exports only the MPI entry points, whichever file
# defines them (src/libhytune.map): an application cannot bind to hytune's
# internals, and calls between hytune's own functions bind locally.  Tests
# that need internals link the static archive.
$(B)/lib/libhytune.so: $(MPI_OBJ) src/libhytune.map
	@mkdir -p $(dir $@)
	$(MPICC) $(SANITIZE) -shared -Wl,-soname,libhytune.so -Wl,--version-script=src/libhytune.map \
	    $(MPI_OBJ) -o $@ $(LIBS)

$(B)/lib/libhytune.a: $(MPI_OBJ)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

$(B)/lib/libhytune-smpi.a: $(SMPI_OBJ)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

$(B)/bin/hytune: $(TOOL_OBJ) $(B)/lib/libhytune.a
	@mkdir -p $(dir $@)
	$(MPICC) $(SANITIZE) $(TOOL_OBJ) -Wl,--whole-archive $(B)/lib/libhytune.a -Wl,--no-whole-archive -o $@ $(LIBS)

# one template for the three compiler wrappers (C, C++, Fortran)
smpi_wrap = sed -e 's|@SMPICOMP@|$(1)|g' -e 's|@LIB@|$(2)/libhytune-smpi.a|g' \
	    -e 's|@INC@|$(3)|g' -e 's|@LIBS@|$(LIBS)|g' tools/hytune-smpicc.in
$(B)/bin/hytune-smpicc: tools/hytune-smpicc.in config.mk
	@mkdir -p $(dir $@)
	$(call smpi_wrap,$(SMPICC),$(abspath $(B)/lib),$(abspath include)) > $@ && chmod +x $@
$(B)/bin/hytune-smpicxx: tools/hytune-smpicc.in config.mk
	@mkdir -p $(dir $@)
	$(call smpi_wrap,$(SMPICXX),$(abspath $(B)/lib),$(abspath include)) > $@ && chmod +x $@
$(B)/bin/hytune-smpif90: tools/hytune-smpicc.in config.mk
	@mkdir -p $(dir $@)
	$(call smpi_wrap,$(SMPIF90),$(abspath $(B)/lib),$(abspath include)) > $@ && chmod +x $@

$(B)/bin/hytune-smpi: $(SMPI_TOOL_OBJ) $(B)/lib/libhytune-smpi.a $(B)/bin/hytune-smpicc
	$(B)/bin/hytune-smpicc $(SMPI_TOOL_OBJ) -o $@

# ---- tests ----
UNIT_SRC := $(wildcard test/unit/*.c)
MPI_TEST_SRC := $(wildcard test/mpi/*.c)
SMPI_TEST_SRC := $(wildcard test/smpi/*.c)
UNIT_BIN := $(UNIT_SRC:%.c=$(B)/%)
MPI_TEST_BIN := $(MPI_TEST_SRC:%.c=$(B)/%) $(MPI_TEST_SRC:%.c=$(B)/%-plain)
SMPI_TEST_BIN := $(if $(SMPICC),$(SMPI_TEST_SRC:%.c=$(B)/%))
TEST_HDRS := $(wildcard test/*.h) test/smpi/coll_matrix.c

# unit tests of the offline code include its .c files
$(B)/test/unit/%: test/unit/%.c $(B)/lib/libhytune.a $(TEST_HDRS) $(HDRS) $(wildcard offline/*.c)
	@mkdir -p $(dir $@)
	$(MPICC) $(CFLAGS) $(SANITIZE) $(INC) $< -Wl,--whole-archive $(B)/lib/libhytune.a -Wl,--no-whole-archive -o $@ $(LIBS)

# linked with the static archive (the test build: internals reachable); the
# shared library, which exports only MPI entry points, is tested through
# LD_PRELOAD of the -plain programs and test/mpi/symbols.sh
$(B)/test/mpi/%: test/mpi/%.c $(B)/lib/libhytune.a $(TEST_HDRS) $(HDRS)
	@mkdir -p $(dir $@)
	$(MPICC) $(CFLAGS) $(SANITIZE) $(INC) $< -o $@ -Wl,--whole-archive $(B)/lib/libhytune.a -Wl,--no-whole-archive $(LIBS)

# the same program without hytune (for LD_PRELOAD runs and reference results)
$(B)/test/mpi/%-plain: test/mpi/%.c $(TEST_HDRS) $(HDRS)
	@mkdir -p $(dir $@)
	$(MPICC) $(CFLAGS) $(SANITIZE) $(INC) -DHYT_TEST_PLAIN=1 $< -o $@ $(LIBS)

# (test_mem_bound includes offline/memory.c)
$(B)/test/smpi/%: test/smpi/%.c $(B)/lib/libhytune-smpi.a $(B)/bin/hytune-smpicc $(TEST_HDRS) $(HDRS) $(wildcard offline/*.c)
	@mkdir -p $(dir $@)
	$(B)/bin/hytune-smpicc $(CFLAGS) $(INC) $< -o $@

# the entry-point test (test/mpi/) also under SimGrid
SMPI_TEST_BIN += $(if $(SMPICC),$(B)/test/smpi/test_core_entries)
$(B)/test/smpi/test_core_entries: test/mpi/test_core_entries.c $(B)/lib/libhytune-smpi.a $(B)/bin/hytune-smpicc $(TEST_HDRS)
	@mkdir -p $(dir $@)
	$(B)/bin/hytune-smpicc $(CFLAGS) -DHYT_SMPI=1 $(INC) $< -o $@

# the Fortran program under SimGrid, with `use mpi` (_mod) and `include 'mpif.h'` (_mpif);
# gfortran >= 10 needs -fallow-argument-mismatch for MPI's choice buffers without explicit interfaces
SMPI_FORTRAN_BIN := $(if $(SMPIF90),$(B)/test/smpi/fortran_coll_mod $(B)/test/smpi/fortran_coll_mpif)
FFLAGS_SMPI := -O1 -g -fallow-argument-mismatch -w
$(B)/test/smpi/fortran_coll_mod: test/smpi/fortran_coll.F90 $(B)/lib/libhytune-smpi.a $(B)/bin/hytune-smpif90
	@mkdir -p $(dir $@)
	$(B)/bin/hytune-smpif90 $(FFLAGS_SMPI) $< -o $@
$(B)/test/smpi/fortran_coll_mpif: test/smpi/fortran_coll.F90 $(B)/lib/libhytune-smpi.a $(B)/bin/hytune-smpif90
	@mkdir -p $(dir $@)
	$(B)/bin/hytune-smpif90 $(FFLAGS_SMPI) -DHYT_MPIF $< -o $@

tests: all $(UNIT_BIN) $(MPI_TEST_BIN) $(SMPI_TEST_BIN) $(SMPI_FORTRAN_BIN)

# ---- proxy applications and the collective benchmark (bench/apps/, SimGrid) ----
BENCH_APP_BIN := $(if $(SMPICC),$(patsubst %.c,$(B)/%,$(wildcard bench/apps/*.c)))
$(B)/bench/apps/%: bench/apps/%.c bench/apps/app.h $(B)/lib/libhytune-smpi.a $(B)/bin/hytune-smpicc
	@mkdir -p $(dir $@)
	$(B)/bin/hytune-smpicc $(CFLAGS) $< -o $@
bench-apps: $(BENCH_APP_BIN)
tests: bench-apps
.PHONY: bench-apps

check: tests
	sh test/run.sh

demo: all
	sh bench/demo.sh

# ---- install ----
install: all
	install -d $(DESTDIR)$(PREFIX)/lib $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/include \
	    $(DESTDIR)$(PREFIX)/lib/pkgconfig $(DESTDIR)$(PREFIX)/share/man/man1 \
	    $(DESTDIR)$(PREFIX)/share/hytune/platforms
	install -m 755 $(B)/lib/libhytune.so $(DESTDIR)$(PREFIX)/lib/
	install -m 644 $(B)/lib/libhytune.a $(DESTDIR)$(PREFIX)/lib/
	install -m 755 $(B)/bin/hytune $(DESTDIR)$(PREFIX)/bin/
	install -m 644 include/hytune.h $(DESTDIR)$(PREFIX)/include/
	install -m 644 docs/hytune.1 $(DESTDIR)$(PREFIX)/share/man/man1/
	install -m 644 platforms/*.xml $(DESTDIR)$(PREFIX)/share/hytune/platforms/
	install -d $(DESTDIR)$(PREFIX)/share/hytune/platforms/traces
	install -m 644 platforms/traces/* $(DESTDIR)$(PREFIX)/share/hytune/platforms/traces/
	sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@VERSION@|0.1.0|g' tools/hytune.pc.in \
	    > $(DESTDIR)$(PREFIX)/lib/pkgconfig/hytune.pc
ifneq ($(SMPICC),)
	install -m 644 $(B)/lib/libhytune-smpi.a $(DESTDIR)$(PREFIX)/lib/
	$(call smpi_wrap,$(SMPICC),$(PREFIX)/lib,$(PREFIX)/include) > $(DESTDIR)$(PREFIX)/bin/hytune-smpicc
	chmod 755 $(DESTDIR)$(PREFIX)/bin/hytune-smpicc
ifneq ($(SMPICXX),)
	$(call smpi_wrap,$(SMPICXX),$(PREFIX)/lib,$(PREFIX)/include) > $(DESTDIR)$(PREFIX)/bin/hytune-smpicxx
	chmod 755 $(DESTDIR)$(PREFIX)/bin/hytune-smpicxx
endif
ifneq ($(SMPIF90),)
	$(call smpi_wrap,$(SMPIF90),$(PREFIX)/lib,$(PREFIX)/include) > $(DESTDIR)$(PREFIX)/bin/hytune-smpif90
	chmod 755 $(DESTDIR)$(PREFIX)/bin/hytune-smpif90
endif
endif

clean:
	rm -rf $(B)

.PHONY: all tests check demo install clean
.SECONDARY:
