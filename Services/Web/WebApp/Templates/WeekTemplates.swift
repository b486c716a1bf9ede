extension Templates {
    static let week = #"""
        {{<layout}}{{$content}}
        <p class="hint">Drag a meal onto another slot to move it (an occupied slot swaps), or use its Move menu.</p>
        {{^empty(selection)}}
        <section class="card">
        <h2>Chosen for this week</h2>
        <p class="hint">Drag one onto a day, or pick it in a slot's Plan menu.</p>
        <ul class="picks" id="picks">{{#selection}}<li class="pick" draggable="true" data-recipe="{{id}}"><a href="/recipes/{{id}}">{{name}}</a>{{#plannedSlots}} <small>planned {{plannedSlots}}×</small>{{/plannedSlots}}</li>{{/selection}}</ul>
        </section>
        {{/empty(selection)}}
        <ol class="week" id="week" data-csrf="{{csrf}}">
        {{#days}}
        <li class="day{{#isToday}} today{{/isToday}}">
        <h2>{{label}}</h2>
        <ul class="slots">
        {{#slots}}
        <li class="slot{{#recipe}} planned{{/recipe}}" data-date="{{date}}" data-slot="{{slot}}"{{#recipe}} draggable="true"{{/recipe}} aria-label="{{meal}} on {{dayLabel}}">
        <span class="meal">{{meal}}</span>
        {{#recipe}}
        <a class="dish" href="/recipes/{{recipe}}">{{recipeName}}</a>
        {{#cooked}}<span class="badge">cooked</span>{{/cooked}}
        <div class="slot-actions">
        <a class="button" href="/cook/{{recipe}}">Cook</a>
        {{#canCook}}
        <form method="post" action="/week/cooked">
        <input type="hidden" name="csrf" value="{{csrf}}"><input type="hidden" name="date" value="{{date}}"><input type="hidden" name="slot" value="{{slot}}">
        {{^empty(others)}}<fieldset class="eaters"><legend>Also eaten by</legend>{{#others}}<label class="check"><input type="checkbox" name="alsoEatenBy" value="{{user}}"> {{name}}</label>{{/others}}</fieldset>{{/empty(others)}}
        <button type="submit">Cooked</button>
        </form>
        {{/canCook}}
        <form method="post" action="/week/move" class="move">
        <input type="hidden" name="csrf" value="{{csrf}}"><input type="hidden" name="fromDate" value="{{date}}"><input type="hidden" name="fromSlot" value="{{slot}}">
        <label for="move-{{date}}-{{slot}}">Move to</label>
        <select id="move-{{date}}-{{slot}}" name="to">{{#targets}}<option value="{{value}}">{{label}}</option>{{/targets}}</select>
        <button type="submit">Move</button>
        </form>
        <form method="post" action="/week/clear">
        <input type="hidden" name="csrf" value="{{csrf}}"><input type="hidden" name="date" value="{{date}}"><input type="hidden" name="slot" value="{{slot}}">
        <button type="submit" class="link">Clear</button>
        </form>
        </div>
        {{/recipe}}
        {{^recipe}}
        <form method="post" action="/week/put" class="put">
        <input type="hidden" name="csrf" value="{{csrf}}"><input type="hidden" name="date" value="{{date}}"><input type="hidden" name="slot" value="{{slot}}">
        {{^empty(selection)}}
        <label for="put-{{date}}-{{slot}}">Plan</label>
        <select id="put-{{date}}-{{slot}}" name="recipe">{{#selection}}<option value="{{id}}">{{name}}</option>{{/selection}}</select>
        <button type="submit">Plan</button>
        {{/empty(selection)}}
        {{#empty(selection)}}<a href="/recipes">Find a recipe</a>{{/empty(selection)}}
        </form>
        {{/recipe}}
        </li>
        {{/slots}}
        </ul>
        </li>
        {{/days}}
        </ol>
        <section class="card">
        <h2>Fill the empty slots</h2>
        <form method="post" action="/week/fill" class="stack">
        <input type="hidden" name="csrf" value="{{csrf}}">
        <label for="budget">Weekly budget in euros (optional)</label>
        <input id="budget" name="weeklyBudget" type="number" min="0" max="10000" step="0.01" inputmode="decimal">
        <button type="submit" class="primary">Fill the week</button>
        </form>
        <form method="post" action="/week/unfill"><input type="hidden" name="csrf" value="{{csrf}}"><button type="submit">Undo the last fill</button></form>
        </section>
        <section class="card">
        <h2>Shopping</h2>
        <form method="post" action="/list/week"><input type="hidden" name="csrf" value="{{csrf}}"><button type="submit" class="primary">Put the week's meals on the list</button></form>
        </section>
        <p><a href="/week/templates">Week templates</a>: keep this week, plan it again, repeat it. · <a href="/week/calendar">The week in your calendar app</a></p>
        {{/content}}{{/layout}}
        """#

    static let weekTemplates = #"""
        {{<layout}}{{$content}}
        <section class="card">
        <h2>Keep this week</h2>
        <form method="post" action="/week/templates/save" class="stack">
        <input type="hidden" name="csrf" value="{{csrf}}">
        <label for="template-name">Name</label><input id="template-name" name="name" required maxlength="80" placeholder="Busy weeks">
        <label class="check"><input type="checkbox" name="replace" value="1"> Replace a template with this name</label>
        <button type="submit" class="primary">Save the week</button>
        </form>
        </section>
        {{#empty(templates)}}<p>No templates yet. A template keeps each weekday's lunch and dinner.</p>{{/empty(templates)}}
        {{#templates}}
        <section class="card template">
        <h2>{{name}}</h2>
        <p class="facts">{{count}}{{#repeats}} · {{repeats}}{{/repeats}}</p>
        <ul class="lines">{{#meals}}<li><span class="meal">{{when}}</span> <a href="/recipes/{{recipe}}">{{name}}</a></li>{{/meals}}</ul>
        <form method="post" action="/week/templates/apply" class="inline">
        <input type="hidden" name="csrf" value="{{csrf}}"><input type="hidden" name="template" value="{{name}}">
        <label for="mode-{{index}}">Plan it</label>
        <select id="mode-{{index}}" name="mode"><option value="fill">in the empty slots</option><option value="replace">instead of this week (cooked meals stay)</option></select>
        <button type="submit">Plan</button>
        </form>
        <form method="post" action="/week/templates/repeat" class="inline">
        <input type="hidden" name="csrf" value="{{csrf}}"><input type="hidden" name="template" value="{{name}}">
        <label for="every-{{index}}">Repeat</label>
        <select id="every-{{index}}" name="everyWeeks">{{#everyOptions}}<option value="{{value}}"{{#selected}} selected{{/selected}}>{{label}}</option>{{/everyOptions}}</select>
        <label for="from-{{index}}">from</label><input id="from-{{index}}" name="from" type="date">
        <button type="submit">Repeat</button>
        </form>
        {{#repeats}}<form method="post" action="/week/templates/repeat"><input type="hidden" name="csrf" value="{{csrf}}"><input type="hidden" name="template" value="{{name}}"><input type="hidden" name="everyWeeks" value="0"><button type="submit" class="link">Stop repeating</button></form>{{/repeats}}
        <form method="post" action="/week/templates/delete"><input type="hidden" name="csrf" value="{{csrf}}"><input type="hidden" name="template" value="{{name}}"><button type="submit" class="link" aria-label="Delete the template {{name}}">Delete</button></form>
        </section>
        {{/templates}}
        <p><a href="/week">Back to the week</a></p>
        {{/content}}{{/layout}}
        """#

    static let calendar = #"""
        {{<layout}}{{$content}}
        <section class="card">
        <h2>Subscribe</h2>
        {{#address}}
        <p>Your calendar's private address. Copy it now: it is shown only this once.</p>
        <p><label for="feed-address">Address</label> <input id="feed-address" readonly value="{{address}}"></p>
        <p><a class="button primary" href="{{webcal}}">Open in my calendar app</a></p>
        {{/address}}
        {{^address}}{{#active}}<p>Your calendar app has a private address for the week{{#since}}, made {{since}}{{/since}}. Make a new one if it was lost: the old one stops working.</p>{{/active}}{{/address}}
        {{^active}}<p>A private address your calendar app fetches on its own: the household's week and the four weeks before it, updated as you plan. Anyone with the address can read the week, and nothing else.</p>{{/active}}
        <form method="post" action="/week/calendar/feed"><input type="hidden" name="csrf" value="{{csrf}}"><input type="hidden" name="on" value="1">
        <button type="submit"{{^active}} class="primary"{{/active}}>{{#active}}Make a new address{{/active}}{{^active}}Make a private address{{/active}}</button></form>
        {{#active}}<form method="post" action="/week/calendar/feed"><input type="hidden" name="csrf" value="{{csrf}}"><input type="hidden" name="on" value="0"><button type="submit">Stop the address</button></form>{{/active}}
        </section>
        <section class="card">
        <h2>Once</h2>
        <p><a href="/week/calendar.ics" download>Download this week as a calendar file (iCalendar)</a></p>
        </section>
        <p><a href="/week">Back to the week</a></p>
        {{/content}}{{/layout}}
        """#
}
