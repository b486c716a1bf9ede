"""The web app in a real browser: headless Chromium driven by Selenium against `sous-web` and the
five services as processes (web_stack.py, sous_stack.py).

    SOUS_BIN_DIR=.build/debug python3 -m pytest -q Tests/Python/test_web_browser.py

- A household's week: two people (two browser profiles), a week planned by drag and drop, the
  list shared live between them, ticks made with no signal and sent once when it is back, cook
  mode with the keyboard, and the diary it logs into.
- Every page at phone and desktop widths: a screenshot each, and accessibility basics.
- The keyboard order of the sign-in page, ticking with the keyboard, and the list page's load
  timings.

Screenshots and list-timing.json go to `$SOUS_SCREENSHOT_DIR` (default .build/screenshots).
Skipped without Chromium, chromedriver or selenium (deploy/install-deps.sh installs them).
"""

from __future__ import annotations

import json
import math
import os
import re
import shutil
import statistics
import sys
import tempfile
import urllib.request
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from sous_stack import PASSWORD, REPO_ROOT  # noqa: E402
from web_stack import WebApp, web_app  # noqa: E402,F401  (web_app: the module's fixture)

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
CHROMEDRIVER = shutil.which("chromedriver")

try:
    from selenium import webdriver
    from selenium.common.exceptions import WebDriverException
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.support import expected_conditions
    from selenium.webdriver.support.ui import WebDriverWait

    HAVE_SELENIUM = True
except ImportError:
    HAVE_SELENIUM = False

pytestmark = pytest.mark.skipif(
    not (HAVE_SELENIUM and CHROMIUM and CHROMEDRIVER),
    reason="needs chromium, chromedriver and the selenium Python package (deploy/install-deps.sh)",
)

#: Every wait polls something the page shows; this only bounds it (CI is a busy 2-core machine).
WAIT_SECONDS = 30
PHONE = (360, 800)
DESKTOP = (1280, 900)
#: A screenshot grows the window to the page's height, up to this (a long page is cut here).
SCREENSHOT_MAX_HEIGHT = 5000


def screenshot_dir() -> Path:
    folder = Path(os.environ.get("SOUS_SCREENSHOT_DIR") or REPO_ROOT / ".build" / "screenshots")
    folder.mkdir(parents=True, exist_ok=True)
    return folder


# MARK: Browsers


@pytest.fixture
def browsers(tmp_path):
    """Opens browsers, each with a profile of its own (its own cookies, service worker and
    IndexedDB: another person's phone), all quit at the end of the test."""
    opened = []

    def open_browser(size=PHONE):
        options = webdriver.ChromeOptions()
        options.binary_location = CHROMIUM
        profile = tempfile.mkdtemp(prefix=f"profile{len(opened)}-", dir=tmp_path)
        for argument in [
            "--headless=new", "--no-sandbox", "--disable-dev-shm-usage", f"--user-data-dir={profile}",
            "--no-first-run", "--disable-sync", "--disable-background-networking", "--disable-component-update",
            # Scrollbars over the page, as on a phone: otherwise a desktop scrollbar takes 15 px
            # of the 360 and the page is laid out narrower than any phone would lay it out.
            "--hide-scrollbars",
            # Two windows at once: neither may be treated as hidden, or its timers and event
            # stream would be throttled the way a phone's foreground tab is not.
            "--disable-background-timer-throttling", "--disable-renderer-backgrounding", "--disable-backgrounding-occluded-windows",
        ]:
            options.add_argument(argument)
        options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
        driver = webdriver.Chrome(options=options, service=Service(CHROMEDRIVER))
        opened.append(driver)
        driver.set_window_size(*size)
        return driver

    yield open_browser
    for driver in opened:
        driver.quit()


def wait_for(driver, condition, message: str, seconds: float = WAIT_SECONDS, ignoring=None):
    return WebDriverWait(driver, seconds, poll_frequency=0.2, ignored_exceptions=ignoring).until(condition, message)


def wait_for_script(driver, script: str, message: str, *arguments, seconds: float = WAIT_SECONDS):
    """Until `script` (a function body returning a value) returns something truthy."""
    return wait_for(driver, lambda d: d.execute_script(script, *arguments), message, seconds)


def wait_loaded(driver) -> None:
    wait_for_script(driver, "return document.readyState === 'complete'", f"{driver.current_url} did not finish loading")


def click(driver, element) -> None:
    # In the middle of the screen: not under the fixed offline banner at the bottom.
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", element)
    element.click()


def mark_page(driver) -> None:
    """Marks the page shown now (its window object), so that `wait_for_new_page` knows it left."""
    driver.execute_script("window.sousOldPage = true")


def wait_for_new_page(driver, message: str) -> None:
    # While a document goes away chromedriver may answer anything (no such node, no context):
    # only a new, loaded document ends the wait.
    wait_for(
        driver, lambda d: d.execute_script("return !window.sousOldPage && document.readyState === 'complete'"), message,
        ignoring=[WebDriverException],
    )


def click_to_new_page(driver, element) -> None:
    """Clicks what sends a form or follows a link, and waits for the page it leads to."""
    mark_page(driver)
    click(driver, element)
    wait_for_new_page(driver, f"clicking did not leave {driver.current_url}")


def fill(driver, field_id: str, text: str) -> None:
    field = driver.find_element(By.ID, field_id)
    field.clear()
    field.send_keys(text)


def register(driver, app: WebApp, name: str, email: str) -> None:
    driver.get(app.url("/register"))
    fill(driver, "name", name)
    fill(driver, "email", email)
    fill(driver, "password", PASSWORD)
    click_to_new_page(driver, driver.find_element(By.CSS_SELECTOR, "form[action='/register'] button[type=submit]"))
    assert "/settings" in driver.current_url, f"registering {email} led to {driver.current_url}:\n{page_text(driver)}"


def page_text(driver) -> str:
    return driver.find_element(By.TAG_NAME, "main").text[:2000]


def browser_cookies(driver) -> str:
    """The browser's cookies as a Cookie header: a plain HTTP request signed in as it is."""
    return "; ".join(f"{cookie['name']}={cookie['value']}" for cookie in driver.get_cookies())


def list_version(cookies: str, app: WebApp) -> int:
    """The household list's version, as the page's script reads it."""
    request = urllib.request.Request(app.url("/list?part=body"), headers={"Cookie": cookies})
    with urllib.request.urlopen(request, timeout=10) as response:
        assert response.status == 200, f"GET /list?part=body answered {response.status}"
        return int(response.headers["X-List-Version"])


# MARK: Page scripts

#: HTML5 drag and drop as the browser fires it (ActionChains cannot drive it in Chrome): one
#: DataTransfer carried from dragstart to drop, as a real drag carries it.
DRAG_AND_DROP = """
const [source, target] = arguments;
const carried = new DataTransfer();
const fire = (element, type) => element.dispatchEvent(
  new DragEvent(type, {bubbles: true, cancelable: true, composed: true, dataTransfer: carried}));
fire(source, 'dragstart');
fire(target, 'dragenter');
fire(target, 'dragover');
fire(target, 'drop');
fire(source, 'dragend');
"""

#: Ticks the service worker holds in IndexedDB ('sous', store 'queue'), from the page (same origin).
QUEUED_TICKS = """
const done = arguments[arguments.length - 1];
const opening = indexedDB.open('sous', 1);
// Never the first to open it: if it were, make the store the way the service worker does.
opening.onupgradeneeded = () => opening.result.createObjectStore('queue', {keyPath: 'id', autoIncrement: true});
opening.onerror = () => done('cannot open: ' + opening.error);
opening.onsuccess = () => {
  const db = opening.result;
  const counting = db.transaction('queue', 'readonly').objectStore('queue').count();
  counting.onsuccess = () => { db.close(); done(counting.result); };
  counting.onerror = () => { db.close(); done('cannot count: ' + counting.error); };
};
"""

LINE_STATE = """
const item = document.querySelector(`#list li.line[data-line="${CSS.escape(arguments[0])}"]`);
if (!item) return null;
const button = item.querySelector('.tick-button');
return {checked: item.classList.contains('checked'), pending: item.classList.contains('pending'),
        pressed: button ? button.getAttribute('aria-pressed') : null};
"""

#: Problems a person with a screen reader or a keyboard, or on a small screen, would meet.
ACCESSIBILITY_PROBLEMS = """
const problems = [];
const describe = (element) => element.outerHTML.slice(0, 140);
const shown = (element) => {
  const style = getComputedStyle(element);
  const box = element.getBoundingClientRect();
  return style.display !== 'none' && style.visibility !== 'hidden' && (box.width > 0 || box.height > 0);
};
for (const field of document.querySelectorAll('input, select, textarea')) {
  if (field.type === 'hidden' || !shown(field)) continue;
  // field.labels: a <label for=id> or a <label> around the field, both name it.
  const byLabel = Array.from(field.labels || []).some((label) => label.textContent.trim() !== '');
  const byAria = (field.getAttribute('aria-label') || '').trim() !== '';
  if (!byLabel && !byAria) problems.push('field without a label: ' + describe(field));
}
for (const element of document.querySelectorAll('button, a')) {
  const text = ((element.getAttribute('aria-label') || '') + element.textContent).trim();
  if (!text) problems.push('no accessible text: ' + describe(element));
}
const headings = document.querySelectorAll('h1').length;
if (headings !== 1) problems.push(`${headings} h1 elements, not one`);
if (!document.documentElement.lang) problems.push('<html> has no lang');
if (arguments[0]) {
  const width = window.innerWidth;
  if (document.documentElement.scrollWidth > width + 1) {
    const wide = Array.from(document.querySelectorAll('body *'))
      .filter((element) => element.getBoundingClientRect().right > width + 1)
      .slice(0, 4).map(describe);
    problems.push(`scrolls sideways: ${document.documentElement.scrollWidth} px wide in ${width} px; ` + wide.join(' | '));
  }
}
return problems;
"""

NAVIGATION_TIMING = """
const navigation = performance.getEntriesByType('navigation')[0];
if (!navigation || navigation.loadEventEnd <= 0) return null;
const own = performance.getEntriesByType('resource').filter((entry) => new URL(entry.name).origin === location.origin);
const sum = (key) => own.reduce((total, entry) => total + (entry[key] || 0), 0);
return {
  responseStart: navigation.responseStart, domInteractive: navigation.domInteractive,
  domContentLoadedEventEnd: navigation.domContentLoadedEventEnd, loadEventEnd: navigation.loadEventEnd,
  transferSize: navigation.transferSize, encodedBodySize: navigation.encodedBodySize,
  resources: own.length,
  totalTransferSize: navigation.transferSize + sum('transferSize'),
  totalEncodedBodySize: navigation.encodedBodySize + sum('encodedBodySize'),
  controlledByServiceWorker: !!navigator.serviceWorker.controller,
};
"""


def line_state(driver, line: str):
    """{checked, pending, pressed} of a list line as the page shows it now, or None."""
    return driver.execute_script(LINE_STATE, line)


TICKED = {"checked": True, "pending": False, "pressed": "true"}
TICKED_PENDING = {"checked": True, "pending": True, "pressed": "true"}


def severe_console_messages(driver) -> list:
    return [entry["message"] for entry in driver.get_log("browser") if entry["level"] == "SEVERE"]


def ensure_service_worker_controls(driver) -> None:
    """The service worker claims pages once active; a page loaded before that is taken over on
    its next load."""
    state = driver.execute_async_script(
        "const done = arguments[0]; navigator.serviceWorker.ready.then((r) => done(r.active ? r.active.state : 'none'));"
    )
    assert state in ("activating", "activated"), f"service worker state {state}"
    if not driver.execute_script("return !!navigator.serviceWorker.controller"):
        driver.refresh()
        wait_loaded(driver)
    wait_for_script(driver, "return !!navigator.serviceWorker.controller", "the service worker never controlled the page")


# MARK: The household's week


def test_household_week_list_offline_cook_diary(web_app: WebApp, browsers):
    app = web_app
    ada = browsers(PHONE)

    # Ada signs up and saves her profile: two people, vegetarian.
    register(ada, app, "Ada", "ada@example.org")
    assert ada.find_elements(By.CSS_SELECTOR, "p.notice"), "no welcome after registering"
    fill(ada, "people", "2")
    vegetarian = ada.find_element(By.CSS_SELECTOR, "input[name=diets][value=vegetarian]")
    if not vegetarian.is_selected():
        click(ada, vegetarian)
    click_to_new_page(ada, ada.find_element(By.CSS_SELECTOR, "form[action='/settings'] button[type=submit]"))
    assert "Saved." in ada.find_element(By.CSS_SELECTOR, "p.notice").text, page_text(ada)
    assert ada.find_element(By.ID, "people").get_attribute("value") == "2"
    assert ada.find_element(By.CSS_SELECTOR, "input[name=diets][value=vegetarian]").is_selected()

    # Soups with the profile's filters but one switch (patience) off: vegetarian ones only.
    ada.get(app.url("/recipes"))
    fill(ada, "q", "soup")
    patience = ada.find_element(By.CSS_SELECTOR, "form[role=search] input[name=patience]")
    assert patience.is_selected(), "the profile's switches start on"
    click(ada, patience)
    click_to_new_page(ada, ada.find_element(By.CSS_SELECTOR, "form[role=search] button[type=submit]"))
    assert "q=soup" in ada.current_url and "patience" not in ada.current_url, ada.current_url
    assert not ada.find_element(By.CSS_SELECTOR, "form[role=search] input[name=patience]").is_selected()
    cards = ada.find_elements(By.CSS_SELECTOR, "li.recipe-card")
    assert len(cards) >= 3, f"fewer than three soups: {page_text(ada)}"
    for card in cards:
        assert "vegetarian" in card.text, f"the diet filter let through: {card.text}"
    links = [card.find_element(By.CSS_SELECTOR, "a").get_attribute("href") for card in cards[:3]]
    recipes = [link.rstrip("/").rsplit("/", 1)[-1] for link in links]
    names = {}

    # Three recipes chosen for the week from their pages.
    for link, recipe in zip(links, recipes):
        ada.get(link)
        names[recipe] = ada.find_element(By.TAG_NAME, "h1").text
        click_to_new_page(ada, ada.find_element(By.CSS_SELECTOR, "form[action='/week/choose'] button[type=submit]"))
        assert ada.current_url.endswith("/week"), ada.current_url
        assert ada.find_elements(By.CSS_SELECTOR, f"#picks li.pick[draggable=true][data-recipe='{recipe}']"), f"{recipe} not chosen"

    # Dragged onto three slots: today's dinner (cooked below) and the next two after it.
    slots = ada.execute_script(
        "return Array.from(document.querySelectorAll('#week li.slot')).map((slot) =>"
        " [slot.dataset.date, slot.dataset.slot, slot.closest('li.day').classList.contains('today')])"
    )
    place = next(index for index, (_, slot, is_today) in enumerate(slots) if is_today and slot == "2")
    # Days before today would not go on the list: after today's dinner, else today's lunch.
    others = slots[place + 1:] + [entry for entry in slots[:place] if entry[2]]
    targets = [(date, slot) for date, slot, _ in [slots[place]] + others[:2]]
    assert len(targets) == 3, slots
    for recipe, (date, slot) in zip(recipes, targets):
        pick = ada.find_element(By.CSS_SELECTOR, f"#picks li.pick[data-recipe='{recipe}']")
        target = ada.find_element(By.CSS_SELECTOR, f"#week li.slot[data-date='{date}'][data-slot='{slot}']")
        mark_page(ada)
        ada.execute_script(DRAG_AND_DROP, pick, target)
        # The script sends the drop and reloads the week.
        wait_for_new_page(ada, f"dropping {recipe} on {date} {slot} did not reload the week")
        wait_for(
            ada, expected_conditions.presence_of_element_located((By.CSS_SELECTOR, f"li.slot[data-date='{date}'][data-slot='{slot}'] a.dish")),
            f"{date} slot {slot} shows no dish after dropping {recipe}",
        )
    for recipe, (date, slot) in zip(recipes, targets):
        dish = ada.find_element(By.CSS_SELECTOR, f"li.slot.planned[data-date='{date}'][data-slot='{slot}'] a.dish")
        assert dish.get_attribute("href").endswith(f"/recipes/{recipe}"), (date, slot, dish.get_attribute("href"))
        assert dish.text == names[recipe]
    dinner_recipe = recipes[0]

    # The week onto the list.
    click_to_new_page(ada, ada.find_element(By.CSS_SELECTOR, "form[action='/list/week'] button[type=submit]"))
    assert ada.current_url.endswith("/list"), ada.current_url
    ada_lines = ada.execute_script("return Array.from(document.querySelectorAll('#list li.line')).map((l) => l.dataset.line)")
    assert len(ada_lines) >= 3, f"the week put {len(ada_lines)} lines on the list: {page_text(ada)}"

    # Bob joins Ada's household with an invitation code.
    bob = browsers(PHONE)
    register(bob, app, "Bob", "bob@example.org")
    ada.get(app.url("/household"))
    click_to_new_page(ada, ada.find_element(By.CSS_SELECTOR, "form[action='/household/invite'] button"))
    code = ada.find_element(By.CSS_SELECTOR, "strong.code").text.strip()
    assert code, page_text(ada)
    bob.get(app.url("/household"))
    fill(bob, "code", code)
    click_to_new_page(bob, bob.find_element(By.CSS_SELECTOR, "form[action='/household/join'] button[type=submit]"))
    assert not bob.find_elements(By.CSS_SELECTOR, "p.error"), page_text(bob)
    assert "Ada" in page_text(bob), f"Bob's household does not list Ada:\n{page_text(bob)}"

    # Both on the list: the same lines.
    ada.get(app.url("/list"))
    bob.get(app.url("/list"))
    ada_lines = ada.execute_script("return Array.from(document.querySelectorAll('#list li.line')).map((l) => l.dataset.line)")
    bob_lines = bob.execute_script("return Array.from(document.querySelectorAll('#list li.line')).map((l) => l.dataset.line)")
    assert bob_lines == ada_lines and len(ada_lines) >= 3, (ada_lines, bob_lines)
    # Gone if Bob's page reloads: what he sees from here on must come from the live updates.
    bob.execute_script("window.sousNotReloaded = true")
    first, second, third = ada_lines[:3]

    # Ada ticks a line; Bob's list shows it without reloading.
    click(ada, ada.find_element(By.CSS_SELECTOR, f"li.line[data-line='{first}'] .tick-button"))
    wait_for(ada, lambda d: line_state(d, first) == TICKED, f"Ada's tick of {first} did not stick")
    wait_for(bob, lambda d: line_state(d, first) == TICKED, f"Bob never saw line {first} ticked")
    assert bob.execute_script("return window.sousNotReloaded === true"), "Bob's list was reloaded, not updated in place"

    # No signal: the web app goes away while Ada ticks two more lines.
    ensure_service_worker_controls(ada)
    signed_in = browser_cookies(ada)
    version_before = list_version(signed_in, app)
    app.stop()
    stopped_on_sigterm = app.last_stop == "sigterm"
    for line in (second, third):
        click(ada, ada.find_element(By.CSS_SELECTOR, f"li.line[data-line='{line}'] .tick-button"))
        wait_for(ada, lambda d, line=line: line_state(d, line) == TICKED_PENDING, f"offline, line {line} did not show as ticked and pending")
    queued_offline = ada.execute_async_script(QUEUED_TICKS)
    assert queued_offline == 2, f"the service worker holds {queued_offline} ticks, not the 2 made offline"

    # Signal again: the queue goes, once; both people see the ticks without reloading.
    app.start()
    for line in (second, third):
        wait_for(ada, lambda d, line=line: line_state(d, line) == TICKED, f"line {line} still pending (or unticked) in Ada's list")
        wait_for(bob, lambda d, line=line: line_state(d, line) == TICKED, f"Bob never saw line {line} ticked")
    assert bob.execute_script("return window.sousNotReloaded === true"), "Bob's list was reloaded, not updated in place"
    assert list_version(signed_in, app) == version_before + 2, "the two offline ticks were not each applied exactly once"
    ada.execute_script("navigator.serviceWorker.controller.postMessage({type: 'flush'})")
    wait_for(ada, lambda d: d.execute_async_script(QUEUED_TICKS) == 0, "the service worker's queue did not empty")
    assert list_version(signed_in, app) == version_before + 2, "flushing again sent a tick twice"

    # Cook today's dinner with the keyboard, step by step, and log it.
    ada.get(app.url(f"/cook/{dinner_recipe}?step=0"))
    steps = int(ada.find_element(By.ID, "cook").get_attribute("data-steps"))
    assert steps >= 1
    for step in range(1, steps + 2):
        ada.find_element(By.TAG_NAME, "body").send_keys(Keys.ARROW_RIGHT)
        wait_for(
            ada, lambda d, step=str(step): d.execute_script(
                "const cook = document.getElementById('cook'); return cook && cook.dataset.step === arguments[0]", step),
            f"the right arrow did not lead to step {step} of {steps}", ignoring=[WebDriverException],  # (navigating)
        )
    assert not ada.find_elements(By.CSS_SELECTOR, "a[rel=next]"), "a next step after the last"
    cooked = ada.find_element(By.CSS_SELECTOR, "form[action='/week/cooked'] button[type=submit]")
    assert "Cooked" in cooked.text
    click_to_new_page(ada, cooked)
    assert "Logged a serving in your diary." in page_text(ada), page_text(ada)

    ada.get(app.url("/diary"))
    meals = ada.execute_script(
        "return Array.from(document.querySelectorAll('section.card')).filter((s) => s.querySelector('ul.rows'))"
        ".map((s) => [s.querySelector('h2').textContent.trim(), s.querySelector('ul.rows').textContent])"
    )
    dinner = [entries for heading, entries in meals if heading.lower().startswith("dinner")]
    assert dinner and names[dinner_recipe] in dinner[0], f"no {names[dinner_recipe]} under Dinner in the diary: {meals}"
    chart_width = ada.execute_script(
        "const svg = document.querySelector('section.chart figure svg'); return svg ? svg.getBoundingClientRect().width : -1"
    )
    assert chart_width > 0, f"the diary's chart is missing or has no width ({chart_width})"

    # Last, so the journey above runs whatever happened: SIGTERM must stop the web app.
    assert stopped_on_sigterm, (
        f"sous-web did not exit within {app.stop_seconds} s of SIGTERM while two browsers had /list open (their"
        " /list/events streams keep it running); it had to be killed"
    )


# MARK: Every page


SIGNED_OUT_PAGES = ["/signin", "/register"]
SIGNED_IN_PAGES = [
    "/week", "/list", "/list/orders", "/recipes", "/recipes?show=favorites", "/recipes?show=community",
    "/recipes/tomato-lentil-soup", "/recipes/new", "/recipes/import", "/cook/tomato-lentil-soup", "/cook/tomato-lentil-soup?step=1",
    "/diary", "/goals", "/settings", "/household", "/coeliac", "/reminders", "/account", "/pantry", "/week/templates", "/week/calendar",
]


def slug(path: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", path.lower()).strip("-")


def save_full_screenshot(driver, path: Path, size) -> None:
    """The window grown to the page's height (a browser's screenshot is the viewport), then back."""
    width, height = size
    chrome = driver.execute_script("return window.outerHeight - window.innerHeight")
    page_height = driver.execute_script("return document.documentElement.scrollHeight")
    driver.set_window_size(width, min(max(height, page_height + chrome), SCREENSHOT_MAX_HEIGHT))
    try:
        assert driver.save_screenshot(str(path)), f"could not write {path}"
    finally:
        driver.set_window_size(width, height)


def check_page(driver, app: WebApp, path: str, size, problems: list) -> None:
    """Loads `path` at `size`, saves its screenshot and adds what is wrong with it to `problems`."""
    driver.get(app.url(path))
    wait_loaded(driver)
    found = []
    if driver.find_elements(By.CSS_SELECTOR, "p.error-page"):
        found.append(f"an error page: {page_text(driver)[:300]}")
    found += driver.execute_script(ACCESSIBILITY_PROBLEMS, size == PHONE)
    found += [f"console: {message}" for message in severe_console_messages(driver)]
    save_full_screenshot(driver, screenshot_dir() / f"{slug(path)}-{size[0]}.png", size)
    problems += [f"{path} at {size[0]} px: {problem}" for problem in found]


def furnish(driver, app: WebApp, recipe: str) -> None:
    """Something on the pages to look at: `recipe` chosen, planned for today's dinner, cooked
    (so in the diary) and on the list."""
    driver.get(app.url(f"/recipes/{recipe}"))
    click_to_new_page(driver, driver.find_element(By.CSS_SELECTOR, "form[action='/week/choose'] button[type=submit]"))
    driver.get(app.url(f"/recipes/{recipe}"))
    # The first day offered is today; dinner is the slot chosen to start with.
    click_to_new_page(driver, driver.find_element(By.CSS_SELECTOR, "form[action='/week/put'] button[type=submit]"))
    click_to_new_page(driver, driver.find_element(By.CSS_SELECTOR, "li.slot.planned form[action='/week/cooked'] button[type=submit]"))
    assert "Logged a serving" in page_text(driver), page_text(driver)
    driver.get(app.url(f"/recipes/{recipe}"))
    click_to_new_page(driver, driver.find_element(By.CSS_SELECTOR, "form[action='/list/recipes'] button[type=submit]"))
    assert driver.find_elements(By.CSS_SELECTOR, "#list li.line"), page_text(driver)


def test_every_page_screenshots_and_labels(web_app: WebApp, browsers):
    app = web_app
    driver = browsers(PHONE)
    problems: list = []
    for size in (PHONE, DESKTOP):
        driver.set_window_size(*size)
        for path in SIGNED_OUT_PAGES:
            check_page(driver, app, path, size, problems)
    driver.set_window_size(*PHONE)
    register(driver, app, "Pages", "pages@example.org")
    furnish(driver, app, "tomato-lentil-soup")
    for size in (PHONE, DESKTOP):
        driver.set_window_size(*size)
        for path in SIGNED_IN_PAGES:
            check_page(driver, app, path, size, problems)
    assert not problems, f"{len(problems)} problems:\n" + "\n".join(problems)


# MARK: Keyboard and timing


def focused(driver):
    return driver.switch_to.active_element


def press(driver, key) -> None:
    ActionChains(driver).send_keys(key).perform()


def percentile(values: list, fraction: float) -> float:
    """Nearest rank: the smallest value with at least `fraction` of the values at or below it."""
    ordered = sorted(values)
    return ordered[max(0, math.ceil(fraction * len(ordered)) - 1)]


def test_keyboard_order_and_list_timing(web_app: WebApp, browsers):
    app = web_app
    driver = browsers(PHONE)

    # Signed out, from the top of the sign-in page: skip link, brand, email, password, Sign in.
    driver.get(app.url("/signin"))
    expected = [
        ("the skip link", driver.find_element(By.CSS_SELECTOR, "a.skip")),
        ("the Sous brand link", driver.find_element(By.CSS_SELECTOR, "header a.brand")),
        ("the email field", driver.find_element(By.ID, "email")),
        ("the password field", driver.find_element(By.ID, "password")),
        ("the Sign in button", driver.find_element(By.CSS_SELECTOR, "form[action='/signin'] button[type=submit]")),
    ]
    for what, element in expected:
        press(driver, Keys.TAB)
        now = focused(driver)
        assert now == element, f"Tab focused {now.get_attribute('outerHTML')[:120]}, expected {what}"

    # A list of ten lines or more, from recipes put on it.
    register(driver, app, "Keys", "keys@example.org")
    for recipe in ["tomato-lentil-soup", "minestrone", "potato-leek-soup", "chilled-gazpacho"]:
        driver.get(app.url(f"/recipes/{recipe}"))
        click_to_new_page(driver, driver.find_element(By.CSS_SELECTOR, "form[action='/list/recipes'] button[type=submit]"))
        if len(driver.find_elements(By.CSS_SELECTOR, "#list li.line")) >= 10:
            break
    lines = len(driver.find_elements(By.CSS_SELECTOR, "#list li.line"))
    assert lines >= 10, f"only {lines} lines on the list"

    # Tab from the top reaches a line's tick button; Enter ticks it.
    driver.get(app.url("/list"))
    for _ in range(40):
        press(driver, Keys.TAB)
        if "tick-button" in (focused(driver).get_attribute("class") or ""):
            break
    button = focused(driver)
    assert "tick-button" in (button.get_attribute("class") or ""), "Tab never reached a tick button"
    assert button.get_attribute("aria-pressed") == "false"
    line = driver.execute_script("return arguments[0].closest('li.line').dataset.line", button)
    press(driver, Keys.ENTER)
    wait_for(driver, lambda d: line_state(d, line) == TICKED, f"Enter on the tick button of line {line} did not tick it")

    # Ten loads of the list at phone size, as Navigation Timing sees them.
    samples = []
    for _ in range(10):
        driver.get(app.url("/list"))
        samples.append(wait_for_script(driver, NAVIGATION_TIMING, "the list page never finished loading"))
    for sample in samples:
        assert sample["domInteractive"] > 0, sample
    metrics = [
        "responseStart", "domInteractive", "domContentLoadedEventEnd", "loadEventEnd", "transferSize", "encodedBodySize",
        "totalTransferSize", "totalEncodedBodySize",
    ]
    report = {
        "page": "/list", "viewport": f"{PHONE[0]}x{PHONE[1]}", "lines": lines, "runs": len(samples),
        "milliseconds": ["responseStart", "domInteractive", "domContentLoadedEventEnd", "loadEventEnd"],
        "median": {metric: round(statistics.median(sample[metric] for sample in samples), 1) for metric in metrics},
        "p90": {metric: round(percentile([sample[metric] for sample in samples], 0.9), 1) for metric in metrics},
        "samples": samples,
    }
    path = screenshot_dir() / "list-timing.json"
    path.write_text(json.dumps(report, indent=2) + "\n")
    print(f"\n/list at {report['viewport']}, {lines} lines, {len(samples)} loads (written to {path}):")
    for metric in metrics:
        print(f"  {metric:26} median {report['median'][metric]:10.1f}   p90 {report['p90'][metric]:10.1f}")
