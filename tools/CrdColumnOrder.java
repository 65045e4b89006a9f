import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Puts the CRD's printer columns in the order ExecutorCluster.java declares them.
 *
 * <p>Why: fabric8's CRD generator sorts additionalPrinterColumns by JSON path (fabric8io/kubernetes-client
 * issue 7454 asks for an order), which puts Age first; kubectl shows columns in the CRD's order, and
 * the convention is the resource's figures first, Age last. The declaration order in the Java class
 * is the one source: this tool reads the names from its {@code @AdditionalPrinterColumn(name = ...)}
 * annotations, reorders the generated YAML's column blocks without changing them, and fails when
 * the two sets differ.
 *
 * <p>Usage: {@code java tools/CrdColumnOrder.java <ExecutorCluster.java> <generated CRD>} (writes
 * the CRD to stdout). Run by {@code make crds} and {@code make crds-check}.
 */
public class CrdColumnOrder {
    private static final Pattern DECLARED = Pattern.compile("@AdditionalPrinterColumn\\(\\s*name\\s*=\\s*\"([^\"]+)\"");
    private static final Pattern NAME = Pattern.compile("^ {6}name: \"([^\"]+)\"$");
    private static final String START = "  - additionalPrinterColumns:";
    private static final String ITEM = "    - ";
    private static final String ITEM_BODY = "      ";

    public static void main(String[] args) throws Exception {
        if (args.length != 2) {
            fail("usage: java tools/CrdColumnOrder.java <ExecutorCluster.java> <generated CRD>");
        }
        List<String> order = new ArrayList<>();
        Matcher m = DECLARED.matcher(Files.readString(Path.of(args[0])));
        while (m.find()) {
            order.add(m.group(1));
        }
        List<String> lines = Files.readAllLines(Path.of(args[1]));
        int start = lines.indexOf(START);
        if (start < 0 || order.isEmpty()) {
            fail("no printer columns found (declared " + order + ", '" + START + "' in the CRD at line " + start + ")");
        }
        Map<String, List<String>> blocks = new LinkedHashMap<>();
        int i = start + 1;
        while (i < lines.size() && lines.get(i).startsWith(ITEM)) {
            List<String> block = new ArrayList<>();
            block.add(lines.get(i++));
            while (i < lines.size() && lines.get(i).startsWith(ITEM_BODY)) {
                block.add(lines.get(i++));
            }
            String name = block.stream().map(NAME::matcher).filter(Matcher::matches).map(x -> x.group(1)).findFirst()
                    .orElseThrow(() -> new IllegalStateException("a printer column without a name: " + block));
            // The generator writes "- jsonPath: ..." or "- description: ..." first: the block's
            // first line carries the "- ", whatever the key.
            blocks.put(name, block);
        }
        if (!blocks.keySet().equals(new java.util.HashSet<>(order)) || blocks.size() != order.size()) {
            fail("the CRD's printer columns " + blocks.keySet() + " differ from those declared in " + args[0] + ": " + order);
        }
        StringBuilder out = new StringBuilder();
        for (int j = 0; j <= start; j++) {
            out.append(lines.get(j)).append('\n');
        }
        for (String name : order) {
            blocks.get(name).forEach(l -> out.append(l).append('\n'));
        }
        for (int j = i; j < lines.size(); j++) {
            out.append(lines.get(j)).append('\n');
        }
        System.out.print(out);
    }

    private static void fail(String message) {
        System.err.println("CrdColumnOrder: " + message);
        System.exit(1);
    }
}
