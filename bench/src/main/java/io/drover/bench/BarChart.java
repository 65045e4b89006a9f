package io.drover.bench;

import io.drover.bench.core.BenchResult;

import javax.imageio.ImageIO;
import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/** A horizontal bar chart of jobs/s per configuration, with the two-commit SQL floor as a dashed line. */
final class BarChart {
    private static final Map<String, Color> MODE_COLORS = Map.of(
            "Global", new Color(0x2e7d32), "Optimistic", new Color(0xc62828), "SkipLocked", new Color(0x1565c0));

    private BarChart() {
    }

    /** A white chart with its title and, under it, the line that says how to read it; plain text from here on. */
    static Graphics2D canvas(BufferedImage image, String title, String legend) {
        Graphics2D g = image.createGraphics();
        g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
        g.setRenderingHint(RenderingHints.KEY_TEXT_ANTIALIASING, RenderingHints.VALUE_TEXT_ANTIALIAS_ON);
        g.setColor(Color.WHITE);
        g.fillRect(0, 0, image.getWidth(), image.getHeight());
        g.setColor(Color.BLACK);
        g.setFont(new Font(Font.SANS_SERIF, Font.BOLD, 15));
        g.drawString(title, 10, 22);
        g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 12));
        g.drawString(legend, 10, 42);
        return g;
    }

    static void write(Path file, List<BenchResult> results, double floor, String title) throws IOException {
        System.setProperty("java.awt.headless", "true");
        int labelWidth = 330;
        int chartWidth = 640;
        int row = 24;
        int top = 60;
        int width = labelWidth + chartWidth + 110;
        int height = top + row * results.size() + 50;
        double max = Math.max(floor, results.stream().mapToDouble(BenchResult::jobsPerSecond).max().orElse(1)) * 1.05;

        BufferedImage image = new BufferedImage(width, height, BufferedImage.TYPE_INT_RGB);
        Graphics2D g = canvas(image, title,
                "jobs/s (green Global, red Optimistic, blue SkipLocked" + (floor > 0 ? "; dashed: two-commit SQL floor, page " + Floors.PAGE + ")" : ")"));

        for (int i = 0; i < results.size(); i++) {
            BenchResult r = results.get(i);
            int y = top + i * row;
            g.setColor(Color.DARK_GRAY);
            String label = r.kind() + "  " + r.lockMode() + "  page " + r.acquirePageSize() + "  nodes " + r.nodes()
                    + (r.threads() != BenchMatrix.THREADS ? "  threads " + r.threads() : "");
            g.drawString(label, 10, y + 16);
            int w = (int) (chartWidth * r.jobsPerSecond() / max);
            g.setColor(MODE_COLORS.getOrDefault(r.lockMode(), Color.GRAY));
            g.fillRect(labelWidth, y + 4, Math.max(w, 1), row - 8);
            g.setColor(Color.BLACK);
            g.drawString(String.format("%,.0f%s", r.jobsPerSecond(), r.timedOut() ? " (cap)" : ""), labelWidth + w + 6, y + 16);
        }
        if (floor > 0) { // the in-cluster report has no SQL floor
            int fx = labelWidth + (int) (chartWidth * floor / max);
            g.setColor(Color.BLACK);
            g.setStroke(new BasicStroke(1.5f, BasicStroke.CAP_BUTT, BasicStroke.JOIN_MITER, 10, new float[] {6, 4}, 0));
            g.drawLine(fx, top - 4, fx, top + row * results.size());
            g.drawString(String.format("SQL floor (page %d) %,.0f", Floors.PAGE, floor), Math.min(fx - 40, width - 150), top + row * results.size() + 18);
        }
        g.dispose();
        ImageIO.write(image, "png", file.toFile());
    }
}
