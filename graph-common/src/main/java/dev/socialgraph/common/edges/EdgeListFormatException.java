package dev.socialgraph.common.edges;

/**
 * A line of an edge list that is not {@code source<sep>target[<sep>relation]} with two positive 64-bit ids and, if
 * present, a relation's wire name ({@code follow}, {@code block} or {@code mute}). The message names the file, the
 * 1-based line number, the reason (for a bad relation column, the accepted names) and the line itself, so the user
 * can fix the file: {@code <file>:<line>: <reason>: '<line, at most 200 characters>'}.
 *
 * <p>An {@link IllegalArgumentException}: the file given is the bad argument.
 */
public final class EdgeListFormatException extends IllegalArgumentException {

    private static final long serialVersionUID = 1L;

    private final String file;
    private final long lineNumber;
    private final String line;

    EdgeListFormatException(String file, long lineNumber, String line, String reason) {
        super(file + ":" + lineNumber + ": " + reason + ": '" + abbreviate(line) + "'");
        this.file = file;
        this.lineNumber = lineNumber;
        this.line = line;
    }

    /** The file the line came from, as it was named to the parser. */
    public String file() {
        return file;
    }

    /** 1-based line number. */
    public long lineNumber() {
        return lineNumber;
    }

    /** The offending line, as read. */
    public String line() {
        return line;
    }

    private static String abbreviate(String line) {
        return line.length() <= 200 ? line : line.substring(0, 200) + "...";
    }
}
