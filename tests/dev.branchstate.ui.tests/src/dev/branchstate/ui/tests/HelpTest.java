package dev.branchstate.ui.tests;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.eclipse.core.runtime.FileLocator;
import org.eclipse.core.runtime.Platform;
import org.eclipse.help.HelpSystem;
import org.eclipse.help.IContext;
import org.eclipse.help.IHelpResource;
import org.eclipse.help.IToc;
import org.eclipse.help.ITopic;
import org.eclipse.jface.preference.PreferenceDialog;
import org.eclipse.jface.preference.PreferencePage;
import org.eclipse.swt.SWT;
import org.eclipse.swt.browser.Browser;
import org.eclipse.swt.browser.ProgressAdapter;
import org.eclipse.swt.browser.ProgressEvent;
import org.eclipse.swt.layout.FillLayout;
import org.eclipse.swt.widgets.Composite;
import org.eclipse.swt.widgets.Control;
import org.eclipse.swt.widgets.Shell;
import org.eclipse.ui.IViewPart;
import org.eclipse.ui.IWorkbenchPage;
import org.eclipse.ui.PlatformUI;
import org.eclipse.ui.dialogs.PreferencesUtil;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.osgi.framework.Bundle;

import dev.branchstate.ui.BranchstateUI;
import dev.branchstate.ui.internal.HelpContexts;

/**
 * The user guide is in Eclipse's help system: its table of contents is registered with every topic, each topic's page
 * is in the bundle with the topic's title and every link between the pages lands on a page (and an anchor) that
 * exists; the guide renders in a browser (screenshot); F1 on the preference pages, the property page and the Branch
 * States view leads to the page that describes them.
 */
class HelpTest {

	private static final String GUIDE = "Branchstate User Guide";
	private static final String HELP_KEY = "org.eclipse.ui.help"; // where setHelp keeps the context id

	private PreferenceDialog dialog;
	private Shell browserShell;

	@AfterEach
	void tearDown() {
		if (dialog != null) {
			dialog.close();
		}
		if (browserShell != null) {
			browserShell.dispose();
		}
	}

	@Test
	void theGuideIsRegisteredWithItsTopicsAndEveryPageIsInTheBundle() throws Exception {
		IToc toc = guide();
		List<String> labels = Arrays.stream(toc.getTopics()).map(ITopic::getLabel).toList();
		assertThat(labels).containsExactly("What Branchstate does", "The automatic switch",
				"Save State and Restore State", "The Branch States view", "Preferences", "Remote states and CI",
				"Headless commands", "Troubleshooting and notices");
		for (ITopic topic : toc.getTopics()) {
			String page = read(topic.getHref());
			assertThat(page).as(topic.getHref()).contains("<title>" + topic.getLabel() + "</title>")
					.contains("<h1>" + topic.getLabel() + "</h1>");
		}
	}

	@Test
	void everyLinkBetweenThePagesLandsOnAPageAndAnchorThatExist() throws Exception {
		Pattern link = Pattern.compile("href=\"([a-z-]+\\.(?:html|css))(?:#([a-z-]+))?\"");
		List<String> checked = new ArrayList<>();
		for (ITopic topic : guide().getTopics()) {
			Matcher m = link.matcher(read(topic.getHref()));
			while (m.find()) {
				String target = read("/dev.branchstate.ui/help/html/" + m.group(1));
				if (m.group(2) != null) {
					assertThat(target).as(topic.getHref() + " links to " + m.group()).contains("id=\"" + m.group(2) + "\"");
				}
				checked.add(m.group(1));
			}
		}
		assertThat(checked).as("the pages link to each other").contains("preferences.html", "remote.html",
				"troubleshooting.html", "guide.css");
	}

	@Test
	void f1OnThePagesAndTheViewLeadsToTheirTopics() throws Exception {
		Map<String, String> expected = Map.of(HelpContexts.PREFERENCE_PAGE, "help/html/preferences.html",
				HelpContexts.REMOTE_STORE_PAGE, "help/html/preferences.html#remote",
				HelpContexts.PROPERTY_PAGE, "help/html/preferences.html#project",
				HelpContexts.BRANCH_STATES_VIEW, "help/html/view.html");
		expected.forEach((id, href) -> {
			IContext context = HelpSystem.getContext(id);
			assertThat(context).as(id).isNotNull();
			assertThat(context.getText()).as(id).isNotBlank();
			assertThat(Arrays.stream(context.getRelatedTopics()).map(IHelpResource::getHref))
					.as(id).anyMatch(h -> h.endsWith(href));
		});

		// the ids are really set on the controls F1 is pressed in
		dialog = PreferencesUtil.createPreferenceDialogOn(shell(), BranchstateUI.PREFERENCE_PAGE_ID, null, null);
		dialog.setBlockOnOpen(false);
		dialog.open();
		assertThat(((PreferencePage) dialog.getSelectedPage()).getControl().getData(HELP_KEY)).isEqualTo(HelpContexts.PREFERENCE_PAGE);
		dialog.close();
		dialog = PreferencesUtil.createPreferenceDialogOn(shell(), "dev.branchstate.ui.remotePreferencePage", null, null);
		dialog.setBlockOnOpen(false);
		dialog.open();
		assertThat(((PreferencePage) dialog.getSelectedPage()).getControl().getData(HELP_KEY)).isEqualTo(HelpContexts.REMOTE_STORE_PAGE);
		dialog.close();
		dialog = null;

		IWorkbenchPage page = PlatformUI.getWorkbench().getActiveWorkbenchWindow().getActivePage();
		// the Resource perspective places the view: leave it where it is (other tests look for it there)
		boolean wasThere = page.findViewReference(BranchstateUI.VIEW_ID) != null;
		IViewPart view = page.showView(BranchstateUI.VIEW_ID);
		try {
			UiTestSupport.processEvents();
			assertThat(withHelp(shell(), HelpContexts.BRANCH_STATES_VIEW)).as("a control of the view has F1 help")
					.isTrue();
		} finally {
			if (!wasThere) {
				page.hideView(view);
			}
		}
	}

	@Test
	void theGuideRendersInABrowser() throws Exception {
		Bundle bundle = Platform.getBundle("dev.branchstate.ui");
		URL folder = FileLocator.toFileURL(bundle.getEntry("help/html/")); // the pages and their style sheet
		browserShell = new Shell(shell(), SWT.SHELL_TRIM);
		browserShell.setText(GUIDE);
		browserShell.setLayout(new FillLayout());
		browserShell.setSize(1000, 760);
		Browser browser = new Browser(browserShell, SWT.NONE);
		AtomicBoolean loaded = new AtomicBoolean();
		browser.addProgressListener(new ProgressAdapter() {
			@Override
			public void completed(ProgressEvent event) {
				loaded.set(true);
			}
		});
		browserShell.open();
		browser.setUrl(new URL(folder, "preferences.html").toString());
		UiTestSupport.waitUntil("the guide's page loaded", Duration.ofSeconds(30), loaded::get);
		UiTestSupport.waitUntil("the page rendered", Duration.ofSeconds(10),
				() -> "Preferences".equals(browser.evaluate("return document.title;")));
		assertThat(browser.evaluate("return document.querySelector('h1').textContent;")).isEqualTo("Preferences");
		long rows = read("/dev.branchstate.ui/help/html/preferences.html").split("<tr>", -1).length - 1;
		assertThat(browser.evaluate("return document.querySelectorAll('table tr').length;"))
				.as("every row of the preference tables is rendered").isEqualTo(Double.valueOf(rows));
		Path png = UiTestSupport.screenshot(browserShell, "help-guide-preferences");
		assertThat(Files.size(png)).isGreaterThan(10_000);
	}

	private static boolean withHelp(Control control, String id) {
		if (id.equals(control.getData(HELP_KEY))) {
			return true;
		}
		if (control instanceof Composite composite) {
			for (Control child : composite.getChildren()) {
				if (withHelp(child, id)) {
					return true;
				}
			}
		}
		return false;
	}

	private static IToc guide() {
		IToc toc = Arrays.stream(HelpSystem.getTocs()).filter(t -> GUIDE.equals(t.getLabel())).findFirst().orElse(null);
		assertThat(toc).as("the toc '%s' among %s", GUIDE,
				Arrays.stream(HelpSystem.getTocs()).map(IToc::getLabel).toList()).isNotNull();
		return toc;
	}

	/** @return the page of a help href ({@code /bundle/path}), read from the bundle */
	private static String read(String href) throws IOException {
		assertThat(href).startsWith("/dev.branchstate.ui/help/html/");
		String path = href.substring("/dev.branchstate.ui/".length()).replaceAll("#.*", "");
		URL entry = Platform.getBundle("dev.branchstate.ui").getEntry(path);
		assertThat(entry).as("%s is in the bundle", path).isNotNull();
		try (InputStream in = entry.openStream()) {
			return new String(in.readAllBytes(), StandardCharsets.UTF_8);
		}
	}

	private static Shell shell() {
		return PlatformUI.getWorkbench().getActiveWorkbenchWindow().getShell();
	}
}
