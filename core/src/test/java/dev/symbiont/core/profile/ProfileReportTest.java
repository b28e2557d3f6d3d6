package dev.symbiont.core.profile;

import dev.symbiont.core.Generator;
import dev.symbiont.core.Tensor;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The report's ordering, shares, printed table and memory lines. */
class ProfileReportTest {

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            throw new AssertionError(e);
        }
    }

    private static ProfileReport sampleReport() {
        Tensor a = Tensor.randn(new Generator(5), 32, 32), b = Tensor.randn(new Generator(6), 32, 32);
        try (ProfilerSession p = Profiler.start("sample")) {
            Profiler.time("data.wait", OpCategory.DATA, () -> sleep(30));
            Profiler.time("slow.block", OpCategory.OTHER, () -> sleep(15));
            for (int i = 0; i < 3; i++) a.matmul(b).add(a).relu();
            return p.report();
        }
    }

    @Test
    void rowsAreSortedBySelfTimeAndSharesSumToOne() {
        ProfileReport r = sampleReport();
        List<ProfileReport.OpRow> ops = r.ops();
        assertTrue(ops.stream().anyMatch(o -> o.name().equals("data.wait")) && ops.stream().anyMatch(o -> o.name().equals("slow.block")), ops.toString());
        for (int i = 1; i < ops.size(); i++) assertTrue(ops.get(i - 1).selfNanos() >= ops.get(i).selfNanos(), ops.toString());
        assertEquals(1.0, ops.stream().mapToDouble(ProfileReport.OpRow::share).sum(), 1e-9);
        assertEquals(1.0, r.categories().stream().mapToDouble(ProfileReport.CategoryRow::share).sum(), 1e-9);
        for (int i = 1; i < r.categories().size(); i++) assertTrue(r.categories().get(i - 1).selfNanos() >= r.categories().get(i).selfNanos());
        double firstShare = (double) ops.get(0).selfNanos() / r.selfNanos();
        assertEquals(firstShare, ops.get(0).share(), 1e-12);
    }

    @Test
    void theTableListsOpsInOrderWithPercentagesThatAddUp() {
        ProfileReport r = sampleReport();
        String table = r.table();
        assertTrue(table.startsWith("Profile 'sample': wall "), table);
        int last = -1;
        for (ProfileReport.OpRow row : r.ops()) {
            int at = table.indexOf("\n" + row.name() + " ");
            assertTrue(at > last, row.name() + " out of order in\n" + table);
            last = at;
        }
        // The op table's percentages (up to the first blank line) add up to ~100%.
        String opTable = table.substring(0, table.indexOf("\n\n"));
        List<Double> percents = new ArrayList<>();
        Matcher m = Pattern.compile(" (\\d+\\.\\d)% ").matcher(opTable);
        while (m.find()) percents.add(Double.parseDouble(m.group(1)));
        assertEquals(r.ops().size() + 1, percents.size(), "one per row plus the total:\n" + opTable);
        double rowSum = percents.subList(0, r.ops().size()).stream().mapToDouble(Double::doubleValue).sum();
        assertEquals(100.0, rowSum, 0.05 * r.ops().size() + 1e-9, opTable);
        assertEquals(100.0, percents.getLast(), 1e-9);
        // GFLOP/s only where FLOPs were estimated: matmul has a rate, the sleeps show "-".
        String matmulLine = opTable.lines().filter(l -> l.startsWith("matmul ")).findFirst().orElseThrow();
        assertTrue(matmulLine.contains(" " + ReportTable.si(3 * 2 * 32 * 32 * 32) + " "), "3 matmuls of 2·32³ FLOPs: " + matmulLine);
        assertTrue(matmulLine.matches(".* 197k +\\d+\\.\\d{2} .*"), "a GFLOP/s rate follows the FLOPs: " + matmulLine);
        String waitLine = opTable.lines().filter(l -> l.startsWith("data.wait ")).findFirst().orElseThrow();
        assertTrue(waitLine.contains(" - "), waitLine);
        assertTrue(table.contains("\nCategory "), table);
        assertTrue(table.contains("\nmatmul "), table);
        assertTrue(table.contains("\nMemory"), table);
    }

    @Test
    void memoryIsReportedPerBackendWithCurrentAtMostPeak() {
        Tensor big = Tensor.zeros(1 << 16);
        try (ProfilerSession p = Profiler.start()) {
            ProfileReport r = p.report();
            BackendMemory ref = r.memory().stream().filter(mm -> mm.backend().equals(big.backend().name())).findFirst().orElseThrow();
            assertTrue(ref.currentBytes() >= 4L << 16, "the 256 KiB tensor is live: " + ref);
            assertTrue(ref.peakBytes() >= ref.currentBytes(), ref.toString());
            assertTrue(r.table().contains("  " + big.backend().name() + ": current "), r.table());
        }
        assertEquals(1 << 16, big.numel());
    }

    @Test
    void largeCountsPrintWithThreeSignificantDigitsAndAnSiPrefix() {
        assertEquals("-", ReportTable.si(0));
        assertEquals("812", ReportTable.si(812));
        assertEquals("999", ReportTable.si(999));
        assertEquals("1.00k", ReportTable.si(1000));
        assertEquals("10.0k", ReportTable.si(9_996));
        assertEquals("999k", ReportTable.si(999_499));
        assertEquals("1.00M", ReportTable.si(999_600));
        assertEquals("93.7M", ReportTable.si(93_700_000));
        assertEquals("1.20G", ReportTable.si(1_200_000_000));
        assertEquals("4.10T", ReportTable.si(4_100_000_000_000L));
    }

    @Test
    void anUnrecordedCategoryReadsAsZeros() {
        ProfileReport r = sampleReport();
        ProfileReport.CategoryRow scan = r.category(OpCategory.SCAN);
        assertEquals(0, scan.calls());
        assertEquals(0, scan.selfNanos());
        assertTrue(r.categories().stream().noneMatch(c -> c.category() == OpCategory.SCAN));
    }
}
