package dev.symbiont.cuda.blas;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class CublasLibrarySearchTest {
    @TempDir Path dir;

    private Path touch(String relative) throws IOException {
        Path file = dir.resolve(relative);
        Files.createDirectories(file.getParent());
        Files.writeString(file, "");
        return file;
    }

    @Test
    void thePropertyComesFirstThenTheEnvironmentThenSoname13AnywhereThenSoname12ThenTheLoader() throws IOException {
        Path property = touch("prop/libcublas.so.12");
        Path env = touch("env/libcublas.so.13");
        Path onPath = touch("lib/libcublas.so.12");
        Path wheel = touch("site-packages/nvidia/cu13/lib/libcublas.so.13");
        var search = CublasLibrarySearch.of(property.toString(), dir.resolve("env").toString(), List.of(dir.resolve("lib")),
                List.of(dir.resolve("site-packages")));
        assertEquals(List.of(property.toString(), env.toString(), wheel.toString(), onPath.toString(),
                "libcublas.so.13", "libcublas.so.12"), search.candidates(), ".so.13 anywhere before .so.12");
    }

    @Test
    void theOlderWheelLayoutIsFoundToo() throws IOException {
        Path wheel = touch("site/nvidia/cublas/lib/libcublas.so.12");
        var search = CublasLibrarySearch.of(null, null, List.of(), List.of(dir.resolve("site")));
        assertEquals(wheel.toString(), search.candidates().getFirst());
    }

    @Test
    void whenNothingIsFoundTheSearchSaysWhereItLooked() {
        var search = CublasLibrarySearch.of(dir.resolve("missing.so").toString(), dir.toString(), List.of(dir.resolve("lib")),
                List.of(dir.resolve("site")));
        assertEquals(List.of("libcublas.so.13", "libcublas.so.12"), search.candidates(), "only the loader's own search is left");
        String searched = search.searched().toString();
        assertTrue(searched.contains("symbiont.cublas.path=" + dir.resolve("missing.so") + " (no such file)"), searched);
        assertTrue(searched.contains("SYMBIONT_CUBLAS=" + dir + " (a folder without [libcublas.so.13, libcublas.so.12])"), searched);
        assertTrue(searched.contains(dir.resolve("site/nvidia/cu13/lib").toString()), searched);
        assertTrue(searched.contains(dir.resolve("lib").toString()), searched);
    }

    @Test
    void pythonSitePackagesAreFoundByListingFolders() throws IOException {
        Files.createDirectories(dir.resolve("venv/lib/python3.12/site-packages"));
        Files.createDirectories(dir.resolve("venv/lib/python2.7/site-packages"));
        var sites = CublasLibrarySearch.pythonSiteDirs(null, List.of(dir.resolve("venv").toString()));
        assertTrue(sites.contains(dir.resolve("venv/lib/python3.12/site-packages")), sites.toString());
        assertTrue(sites.stream().noneMatch(p -> p.toString().contains("python2")), sites.toString());
    }

    @Test
    void aVirtualEnvironmentOnThePathIsSearchedWithoutBeingActivated() throws IOException {
        Path python = touch("opt/torch/.venv/bin/python3");
        assertTrue(python.toFile().setExecutable(true));
        Files.createDirectories(dir.resolve("opt/torch/.venv/lib/python3.12/site-packages"));
        var prefixes = CublasLibrarySearch.pythonPrefixesOnPath(dir.resolve("opt/torch/.venv/bin") + ":" + dir.resolve("nowhere"));
        assertEquals(List.of(dir.resolve("opt/torch/.venv").toString()), prefixes);
        assertTrue(CublasLibrarySearch.pythonSiteDirs(null, prefixes).contains(dir.resolve("opt/torch/.venv/lib/python3.12/site-packages")));
    }
}
