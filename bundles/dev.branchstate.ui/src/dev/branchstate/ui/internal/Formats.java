package dev.branchstate.ui.internal;

import java.text.NumberFormat;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.time.format.FormatStyle;
import java.util.Locale;

import org.eclipse.osgi.util.NLS;

/** Figures as the user reads them: sizes in KB/MB/GB, ratios, counts with grouping, dates, durations. */
public final class Formats {

	private static final DateTimeFormatter DATE_TIME = DateTimeFormatter.ofLocalizedDateTime(FormatStyle.SHORT)
			.withZone(ZoneId.systemDefault());

	private Formats() {
	}

	public static String count(long n) {
		return NumberFormat.getIntegerInstance().format(n);
	}

	/**
	 * "1 state", "3 states": the count with the message for one or the message for any other count (whose {0} is the
	 * count).
	 */
	public static String count(long n, String one, String other) {
		return n == 1 ? one : NLS.bind(other, count(n));
	}

	/** 0 B, 512 B, 1.5 KB, 12.3 MB, 2.0 GB (binary multiples, as file managers show them). */
	public static String size(long bytes) {
		if (bytes < 1024) {
			return NLS.bind(Messages.Format_bytes, Long.toString(bytes));
		}
		String[] units = { Messages.Format_kb, Messages.Format_mb, Messages.Format_gb, Messages.Format_tb };
		double value = bytes;
		int unit = -1;
		do {
			value /= 1024;
			unit++;
		} while (value >= 1024 && unit < units.length - 1);
		return NLS.bind(units[unit], String.format(Locale.getDefault(), "%.1f", value)); //$NON-NLS-1$
	}

	/**
	 * @return "4.2×" for data compressed to about a quarter, "12×" above ten, "0.35×" below one (a tiny state whose
	 *         archive is mostly ZIP headers), or "–" when unknown
	 */
	public static String ratio(long uncompressed, long compressed) {
		if (compressed <= 0 || uncompressed <= 0) {
			return Messages.Format_none;
		}
		double ratio = (double) uncompressed / compressed;
		String format = ratio >= 10 ? "%.0f" : ratio >= 1 ? "%.1f" : "%.2f"; //$NON-NLS-1$ //$NON-NLS-2$ //$NON-NLS-3$
		return NLS.bind(Messages.Format_ratio, String.format(Locale.getDefault(), format, ratio));
	}

	public static String dateTime(Instant instant) {
		return instant == null ? Messages.Format_none : DATE_TIME.format(instant);
	}

	/** 850 ms, 1.2 s, 2 min 05 s */
	public static String duration(Duration d) {
		if (d == null) {
			return Messages.Format_none;
		}
		long millis = d.toMillis();
		if (millis < 1000) {
			return NLS.bind(Messages.Format_millis, Long.toString(millis));
		}
		if (millis < 60_000) {
			return NLS.bind(Messages.Format_seconds, String.format(Locale.getDefault(), "%.1f", millis / 1000.0)); //$NON-NLS-1$
		}
		return NLS.bind(Messages.Format_minutes, Long.toString(millis / 60_000),
				String.format("%02d", (millis / 1000) % 60)); //$NON-NLS-1$
	}

	/** The first 7 hex digits of a commit id, as Git shows it. */
	public static String shortId(String commitId) {
		if (commitId == null) {
			return Messages.Format_none;
		}
		return commitId.length() > 7 ? commitId.substring(0, 7) : commitId;
	}
}
