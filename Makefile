# hytune build.  ./configure writes config.mk; `make` builds
#   build/lib/libhytune.so.VERSION (soname libhytune.so.MAJOR, links
#   libhytune.so.MAJOR and libhytune.so), build/lib/libhytune.a   (MPICH)
#   build/lib/libhytune-smpi.a                      (SimGrid SMPI, if found)
#   build/bin/hytune, build/bin/hytune-smpi         (the command)
#   build/bin/hytune-smpicc, hytune-smpicxx,
#   build/bin/hytune-smpif90                        (compile any MPI program for simulation)
ifeq ($(wildcard config.mk),)
$(error run ./configure first (./configure --help))
endif
include config.mk
ifeq ($(libdir),)
$(error config.mk comes from an older ./configure: run ./configure again)
endif

# the one place the version is written; the soname carries its major number
VERSION := $(shell cat VERSION)
SOMAJOR := $(firstword $(subst ., ,$(VERSION)))
SONAME := libhytune.so.$(SOMAJOR)

B ?= build
# src/smpi_*.c: SimGrid only (Fortran entry points SMPI's own bindings would bypass)
SMPI_ONLY_SRC := $(wildcard src/smpi_*.c)
LIBSRC := $(filter-out $(SMPI_ONLY_SRC),$(wildcard src/*.c algorithms/*.c algorithms/*/*.c topology/*.c online/*.c))
TOOLSRC := tools/hytune.c $(wildcard offline/*.c)
# header dependencies: every compile writes a .d file next to its output
DEPFLAGS = -MMD -MP -MF $@.d
INC := -I. $(JSON_CFLAGS) $(HWLOC_CFLAGS)
LIBS := $(LDFLAGS) $(JSON_LIBS) $(HWLOC_LIBS) -lpthread -lm

MPI_OBJ := $(LIBSRC:%.c=$(B)/mpich/%.o)
TOOL_OBJ := $(TOOLSRC:%.c=$(B)/mpich/%.o)
SMPI_OBJ := $(LIBSRC:%.c=$(B)/smpi/%.o) $(SMPI_ONLY_SRC:%.c=$(B)/smpi/%.o)
SMPI_TOOL_OBJ := $(TOOLSRC:%.c=$(B)/smpi/%.o)

TARGETS := $(B)/lib/libhytune.so $(B)/lib/$(SONAME) $(B)/lib/libhytune.a $(B)/bin/hytune \
    $(B)/include/hytune.h $(B)/man/hytune.1
ifneq ($(SMPICC),)
TARGETS += $(B)/lib/libhytune-smpi.a $(B)/bin/hytune-smpicc $(B)/bin/hytune-smpi
SMPI_WRAPPERS := $(B)/bin/hytune-smpicc $(if $(SMPICXX),$(B)/bin/hytune-smpicxx) $(if $(SMPIF90),$(B)/bin/hytune-smpif90)
TARGETS += $(SMPI_WRAPPERS)
endif

all: $(TARGETS)

$(B)/mpich/%.o: %.c config.mk
	@mkdir -p $(dir $@)
	$(MPICC) $(CFLAGS) $(SANITIZE) -fPIC $(INC) $(DEPFLAGS) -c $< -o $@

$(B)/smpi/%.o: %.c config.mk
	@mkdir -p $(dir $@)
	@rm -f $@; SMPI_PRETEND_CC=1 $(SMPICC) $(CFLAGS) -DHYT_SMPI=1 $(INC) $(DEPFLAGS) -c $< -o $@ 2>&1 | grep -v 'SMPI_PRETEND_CC' >&2; test -f $@

# the command prints the version
$(B)/mpich/tools/hytune.o $(B)/smpi/tools/hytune.o: CFLAGS += -DHYT_VERSION='"$(VERSION)"'
$(B)/mpich/tools/hytune.o $(B)/smpi/tools/hytune.o: VERSION

# The shared library exports only the MPI entry points, whichever file
# defines them (src/libhytune.map): an application cannot bind to hytune's
# internals, and calls between hytune's own functions bind locally.  Tests
# that need internals link the static archive.
$(B)/lib/libhytune.so.$(VERSION): $(MPI_OBJ) src/libhytune.map VERSION
	@mkdir -p $(dir $@)
	$(MPICC) $(SANITIZE) -shared -Wl,-soname,$(SONAME) -Wl,--version-script=src/libhytune.map \
	    $(MPI_OBJ) -o $@ $(LIBS)
$(B)/lib/$(SONAME): $(B)/lib/libhytune.so.$(VERSION)
	ln -sf $(notdir $<) $@
$(B)/lib/libhytune.so: $(B)/lib/$(SONAME)
	ln -sf $(notdir $<) $@

# files that carry the version or the directories: VERSION and config.mk
# substituted into their templates (@VERSION@, @prefix@, @libdir@ ...); the
# ones with directories at install time, so that make install prefix=... holds
fill_in = sed -e 's|@VERSION@|$(VERSION)|g' -e 's|@prefix@|$(prefix)|g' -e 's|@bindir@|$(bindir)|g' \
	    -e 's|@libdir@|$(libdir)|g' -e 's|@includedir@|$(includedir)|g' -e 's|@mandir@|$(mandir)|g' \
	    -e 's|@datadir@|$(datadir)|g' -e 's|@LIBS_PRIVATE@|$(strip $(JSON_LIBS) $(HWLOC_LIBS) -lpthread -lm)|g'
$(B)/include/hytune.h: include/hytune.h.in VERSION
	@mkdir -p $(dir $@)
	$(fill_in) $< > $@
$(B)/man/hytune.1: docs/hytune.1 VERSION
	@mkdir -p $(dir $@)
	$(fill_in) $< > $@

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
$(B)/bin/hytune-smpicc: tools/hytune-smpicc.in config.mk $(B)/include/hytune.h
	@mkdir -p $(dir $@)
	$(call smpi_wrap,$(SMPICC),$(abspath $(B)/lib),$(abspath $(B)/include)) > $@ && chmod +x $@
$(B)/bin/hytune-smpicxx: tools/hytune-smpicc.in config.mk $(B)/include/hytune.h
	@mkdir -p $(dir $@)
	$(call smpi_wrap,$(SMPICXX),$(abspath $(B)/lib),$(abspath $(B)/include)) > $@ && chmod +x $@
$(B)/bin/hytune-smpif90: tools/hytune-smpicc.in config.mk $(B)/include/hytune.h
	@mkdir -p $(dir $@)
	$(call smpi_wrap,$(SMPIF90),$(abspath $(B)/lib),$(abspath $(B)/include)) > $@ && chmod +x $@

$(B)/bin/hytune-smpi: $(SMPI_TOOL_OBJ) $(B)/lib/libhytune-smpi.a $(B)/bin/hytune-smpicc
	$(B)/bin/hytune-smpicc $(SMPI_TOOL_OBJ) -o $@

# ---- tests ----
UNIT_SRC := $(wildcard test/unit/*.c)
MPI_TEST_SRC := $(wildcard test/mpi/*.c)
SMPI_TEST_SRC := $(wildcard test/smpi/*.c)
UNIT_BIN := $(UNIT_SRC:%.c=$(B)/%)
MPI_TEST_BIN := $(MPI_TEST_SRC:%.c=$(B)/%) $(MPI_TEST_SRC:%.c=$(B)/%-plain)
SMPI_TEST_BIN := $(if $(SMPICC),$(SMPI_TEST_SRC:%.c=$(B)/%))

# unit tests of the offline code include its .c files
$(B)/test/unit/%: test/unit/%.c $(B)/lib/libhytune.a
	@mkdir -p $(dir $@)
	$(MPICC) $(CFLAGS) $(SANITIZE) $(INC) $(DEPFLAGS) $< -Wl,--whole-archive $(B)/lib/libhytune.a -Wl,--no-whole-archive -o $@ $(LIBS)

# linked with the static archive (the test build: internals reachable); the
# shared library, which exports only MPI entry points, is tested through
# LD_PRELOAD of the -plain programs and test/mpi/symbols.sh
$(B)/test/mpi/%: test/mpi/%.c $(B)/lib/libhytune.a
	@mkdir -p $(dir $@)
	$(MPICC) $(CFLAGS) $(SANITIZE) $(INC) $(DEPFLAGS) $< -o $@ -Wl,--whole-archive $(B)/lib/libhytune.a -Wl,--no-whole-archive $(LIBS)

# the MPI matrix is the SimGrid matrix's source (#include) built for MPICH
$(B)/test/mpi/coll_matrix_mpi $(B)/test/mpi/coll_matrix_mpi-plain: test/smpi/coll_matrix.c

# the same program without hytune (for LD_PRELOAD runs and reference results)
$(B)/test/mpi/%-plain: test/mpi/%.c
	@mkdir -p $(dir $@)
	$(MPICC) $(CFLAGS) $(SANITIZE) $(INC) $(DEPFLAGS) -DHYT_TEST_PLAIN=1 $< -o $@ $(LIBS)

$(B)/test/smpi/%: test/smpi/%.c $(B)/lib/libhytune-smpi.a $(B)/bin/hytune-smpicc
	@mkdir -p $(dir $@)
	$(B)/bin/hytune-smpicc $(CFLAGS) $(INC) $(DEPFLAGS) $< -o $@

# the entry-point, v-collective, scratch and allocation-agreement tests (test/mpi/) also under SimGrid
SMPI_TEST_BIN += $(if $(SMPICC),$(B)/test/smpi/test_core_entries $(B)/test/smpi/test_core_vcoll $(B)/test/smpi/test_scratch $(B)/test/smpi/test_setup_rent $(B)/test/smpi/test_alloc_agree)
$(B)/test/smpi/test_core_entries $(B)/test/smpi/test_core_vcoll $(B)/test/smpi/test_scratch $(B)/test/smpi/test_setup_rent $(B)/test/smpi/test_alloc_agree: $(B)/test/smpi/%: test/mpi/%.c $(B)/lib/libhytune-smpi.a $(B)/bin/hytune-smpicc
	@mkdir -p $(dir $@)
	$(B)/bin/hytune-smpicc $(CFLAGS) -DHYT_SMPI=1 $(INC) $(DEPFLAGS) $< -o $@

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
$(B)/bench/apps/%: bench/apps/%.c $(B)/lib/libhytune-smpi.a $(B)/bin/hytune-smpicc
	@mkdir -p $(dir $@)
	$(B)/bin/hytune-smpicc $(CFLAGS) $(DEPFLAGS) $< -o $@
bench-apps: $(BENCH_APP_BIN)
tests: bench-apps
.PHONY: bench-apps

check: tests
	sh test/run.sh

demo: all
	sh bench/demo.sh

# ---- install ----
# GNU directory variables from config.mk (make install prefix=... moves them
# all); DESTDIR stages the tree for a package.
D_BIN := $(DESTDIR)$(bindir)
D_LIB := $(DESTDIR)$(libdir)
D_INC := $(DESTDIR)$(includedir)
D_MAN := $(DESTDIR)$(mandir)/man1
D_PLAT := $(DESTDIR)$(datadir)/hytune/platforms
D_MOD := $(DESTDIR)$(modulefilesdir)/hytune
D_DOC := $(DESTDIR)$(docdir)
# the documentation, in the tree's layout (README.md links docs/...)
DOC_FILES := $(wildcard docs/*.md)
DOC_IMG := $(wildcard docs/img/*)
DOC_DATA := $(wildcard docs/data/*)
SMPI_BINS := $(if $(SMPICC),hytune-smpicc) $(if $(SMPICC),$(if $(SMPICXX),hytune-smpicxx)) \
    $(if $(SMPICC),$(if $(SMPIF90),hytune-smpif90))

install: all
	install -d $(D_BIN) $(D_LIB)/pkgconfig $(D_INC) $(D_MAN) $(D_PLAT)/traces $(D_MOD) $(D_DOC)/docs/img $(D_DOC)/docs/data
	install -m 644 README.md $(D_DOC)/
	install -m 644 $(DOC_FILES) $(D_DOC)/docs/
	$(if $(DOC_IMG),install -m 644 $(DOC_IMG) $(D_DOC)/docs/img/)
	$(if $(DOC_DATA),install -m 644 $(DOC_DATA) $(D_DOC)/docs/data/)
	install -m 755 $(B)/lib/libhytune.so.$(VERSION) $(D_LIB)/
	ln -sf libhytune.so.$(VERSION) $(D_LIB)/$(SONAME)
	ln -sf $(SONAME) $(D_LIB)/libhytune.so
	install -m 644 $(B)/lib/libhytune.a $(D_LIB)/
	$(fill_in) tools/hytune.pc.in > $(D_LIB)/pkgconfig/hytune.pc && chmod 644 $(D_LIB)/pkgconfig/hytune.pc
	install -m 755 $(B)/bin/hytune $(D_BIN)/
	install -m 644 $(B)/include/hytune.h $(D_INC)/
	install -m 644 $(B)/man/hytune.1 $(D_MAN)/
	install -m 644 platforms/*.xml $(D_PLAT)/
	install -m 644 platforms/traces/* $(D_PLAT)/traces/
	$(fill_in) tools/hytune.modulefile.in > $(D_MOD)/$(VERSION) && chmod 644 $(D_MOD)/$(VERSION)
ifneq ($(SMPICC),)
	install -m 644 $(B)/lib/libhytune-smpi.a $(D_LIB)/
	$(foreach w,$(SMPI_BINS),$(call smpi_wrap,$(SMPI_COMP_$(w)),$(libdir),$(includedir)) > $(D_BIN)/$(w) && chmod 755 $(D_BIN)/$(w) &&) true
endif
SMPI_COMP_hytune-smpicc = $(SMPICC)
SMPI_COMP_hytune-smpicxx = $(SMPICXX)
SMPI_COMP_hytune-smpif90 = $(SMPIF90)

# removes every file install writes (whatever config.mk's SimGrid says now)
# and hytune's own directories
uninstall:
	rm -f $(D_LIB)/libhytune.so.$(VERSION) $(D_LIB)/$(SONAME) $(D_LIB)/libhytune.so \
	    $(D_LIB)/libhytune.a $(D_LIB)/libhytune-smpi.a $(D_LIB)/pkgconfig/hytune.pc \
	    $(D_BIN)/hytune $(D_BIN)/hytune-smpicc $(D_BIN)/hytune-smpicxx $(D_BIN)/hytune-smpif90 \
	    $(D_INC)/hytune.h $(D_MAN)/hytune.1 $(D_MOD)/$(VERSION)
	rm -f $(addprefix $(D_PLAT)/,$(notdir $(wildcard platforms/*.xml))) \
	    $(addprefix $(D_PLAT)/traces/,$(notdir $(wildcard platforms/traces/*)))
	rm -f $(D_DOC)/README.md $(addprefix $(D_DOC)/,$(DOC_FILES) $(DOC_IMG) $(DOC_DATA))
	-rmdir $(D_PLAT)/traces $(D_PLAT) $(DESTDIR)$(datadir)/hytune $(D_MOD) \
	    $(D_DOC)/docs/img $(D_DOC)/docs/data $(D_DOC)/docs $(D_DOC) 2>/dev/null

clean:
	rm -rf $(B)

-include $(shell find $(B) -name '*.d' 2>/dev/null)

.PHONY: all tests check demo install uninstall clean
.SECONDARY:
