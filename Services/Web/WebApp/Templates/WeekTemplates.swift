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
        <p><a href="/week/calendar.ics" download>Download the week as a calendar (iCalendar)</a></p>
        {{/content}}{{/layout}}
        """#
}
