extension Templates {
    static let diary = #"""
        {{<layout}}{{$content}}
        <nav class="day-nav" aria-label="Day">
        <a href="/diary?date={{previousDay}}" rel="prev">← {{previousDay}}</a>
        <strong>{{date}}</strong>
        {{#nextDay}}<a href="/diary?date={{nextDay}}" rel="next">{{nextDay}} →</a>{{/nextDay}}
        </nav>
        <section class="card goals">
        <h2>Today against your goals</h2>
        <table class="macros">
        <thead><tr><th scope="col">Nutrient</th><th scope="col">Eaten</th><th scope="col">Goal</th><th scope="col">Left</th></tr></thead>
        <tbody>{{#macros}}<tr><th scope="row">{{label}}</th><td>{{eaten}}</td><td>{{goal}}</td><td>{{left}}</td></tr>{{/macros}}</tbody>
        </table>
        <p><a href="/goals">Change goals</a></p>
        </section>
        <section class="card drinks">
        <h2>Drinks</h2>
        {{#drinks}}
        <form method="post" action="/diary/drink" class="inline">
        <input type="hidden" name="csrf" value="{{csrf}}"><input type="hidden" name="date" value="{{date}}"><input type="hidden" name="drink" value="{{drink}}">
        <span>{{label}}: <strong>{{count}}</strong></span>
        <button type="submit" name="delta" value="1" aria-label="One more {{label}}">+1</button>
        <button type="submit" name="delta" value="-1" aria-label="One less {{label}}">−1</button>
        </form>
        {{/drinks}}
        </section>
        {{#meals}}
        <section class="card">
        <h2>{{meal}} <small>{{kcal}} kcal</small></h2>
        <ul class="rows">
        {{#entries}}
        <li><span>{{food}} <small>{{grams}} g · {{kcal}} kcal</small></span>
        <form method="post" action="/diary/delete"><input type="hidden" name="csrf" value="{{csrf}}"><input type="hidden" name="id" value="{{id}}"><input type="hidden" name="date" value="{{date}}"><button type="submit" class="link" aria-label="Delete {{food}}">Delete</button></form>
        </li>
        {{/entries}}
        </ul>
        </section>
        {{/meals}}
        <section class="card">
        <h2>Add food</h2>
        <form method="get" action="/diary" class="inline" role="search">
        <input type="hidden" name="date" value="{{date}}">
        <label for="food-search">Food</label>
        <input id="food-search" name="q" type="search" value="{{query}}" maxlength="100">
        <button type="submit">Search</button>
        </form>
        {{^empty(results)}}
        <ul class="rows">
        {{#results}}
        <li>
        <form method="post" action="/diary/add" class="inline">
        <input type="hidden" name="csrf" value="{{csrf}}"><input type="hidden" name="date" value="{{date}}"><input type="hidden" name="{{kind}}" value="{{value}}">
        <span>{{name}} <small>{{per100}} kcal/100 g</small></span>
        {{^empty(portions)}}<label for="grams-{{kind}}-{{value}}">Amount</label>{{/empty(portions)}}{{#empty(portions)}}<label for="grams-{{kind}}-{{value}}">Grams</label>{{/empty(portions)}}<input id="grams-{{kind}}-{{value}}" name="grams" type="number" min="0.1" max="5000" step="any" value="{{grams}}" required inputmode="decimal">
        {{^empty(portions)}}<label for="measure-{{kind}}-{{value}}">Measure</label><select id="measure-{{kind}}-{{value}}" name="measure"><option value="g">grams</option>{{#portions}}<option value="{{index}}">{{label}}</option>{{/portions}}</select>{{/empty(portions)}}
        <label for="meal-{{kind}}-{{value}}">Meal</label><select id="meal-{{kind}}-{{value}}" name="meal">{{#mealChoices}}<option value="{{value}}"{{#selected}} selected{{/selected}}>{{value}}</option>{{/mealChoices}}</select>
        <button type="submit">Add</button>
        </form>
        </li>
        {{/results}}
        </ul>
        {{/empty(results)}}
        {{#searched}}{{#empty(results)}}<p>Nothing found for “{{query}}”.</p>{{/empty(results)}}{{/searched}}
        <form method="post" action="/diary/add" class="inline">
        <input type="hidden" name="csrf" value="{{csrf}}"><input type="hidden" name="date" value="{{date}}">
        <label for="barcode">Barcode</label><input id="barcode" name="barcode" inputmode="numeric" pattern="[0-9]{8,14}" maxlength="14">
        <label for="barcode-grams">Grams</label><input id="barcode-grams" name="grams" type="number" min="1" max="5000" value="100" required>
        <label for="barcode-meal">Meal</label><select id="barcode-meal" name="meal">{{#mealChoices}}<option value="{{value}}"{{#selected}} selected{{/selected}}>{{value}}</option>{{/mealChoices}}</select>
        <button type="submit">Add by barcode</button>
        </form>
        </section>
        {{^empty(yesterday)}}
        <section class="card">
        <h2>From yesterday</h2>
        <ul class="rows">
        {{#yesterday}}
        <li><span>{{food}} <small>{{grams}} g · {{meal}}</small></span>
        <form method="post" action="/diary/again"><input type="hidden" name="csrf" value="{{csrf}}"><input type="hidden" name="date" value="{{date}}"><input type="hidden" name="index" value="{{index}}"><button type="submit">Log again</button></form>
        </li>
        {{/yesterday}}
        </ul>
        </section>
        {{/empty(yesterday)}}
        {{^empty(saved)}}
        <section class="card">
        <h2>Saved foods</h2>
        <ul class="rows">
        {{#saved}}
        <li><span>{{name}} <small>{{grams}} g</small></span>
        <form method="post" action="/diary/saved"><input type="hidden" name="csrf" value="{{csrf}}"><input type="hidden" name="date" value="{{date}}"><input type="hidden" name="id" value="{{id}}"><button type="submit">Log</button></form>
        </li>
        {{/saved}}
        </ul>
        </section>
        {{/empty(saved)}}
        <section class="card chart">
        <h2>The last two weeks</h2>
        <figure>{{{chart}}}<figcaption>Energy, carbohydrates, protein and fat each day against your goals.</figcaption></figure>
        </section>
        <section class="card">
        <h2>Weekly averages</h2>
        <table class="macros">
        <thead><tr><th scope="col">Week of</th><th scope="col">Days</th><th scope="col">kcal</th><th scope="col">Protein</th></tr></thead>
        <tbody>{{#weeks}}<tr><th scope="row">{{start}}</th><td>{{days}}</td><td>{{kcal}}</td><td>{{protein}} g</td></tr>{{/weeks}}</tbody>
        </table>
        <p>{{withinGoal}}</p>
        </section>
        {{/content}}{{/layout}}
        """#

    static let goals = #"""
        {{<layout}}{{$content}}
        <form method="post" action="/goals" class="card stack">
        <input type="hidden" name="csrf" value="{{csrf}}">
        <label for="kcal">Energy (kcal a day)</label><input id="kcal" name="kcal" type="number" min="500" max="10000" value="{{goals.kcal}}" required>
        <label for="carbohydrates">Carbohydrates (g)</label><input id="carbohydrates" name="carbohydrates" type="number" min="0" max="2000" value="{{goals.carbohydrates}}" required>
        <label for="protein">Protein (g)</label><input id="protein" name="protein" type="number" min="0" max="1000" value="{{goals.protein}}" required>
        <label for="fat">Fat (g)</label><input id="fat" name="fat" type="number" min="0" max="1000" value="{{goals.fat}}" required>
        <button type="submit" class="primary">Save goals</button>
        </form>
        <h2>Or start from a preset</h2>
        <ul class="rows">
        {{#presets}}
        <li><span><strong>{{name}}</strong><br><small>{{explanation}}</small></span>
        <form method="post" action="/goals"><input type="hidden" name="csrf" value="{{csrf}}"><input type="hidden" name="preset" value="{{name}}"><button type="submit">Use</button></form>
        </li>
        {{/presets}}
        </ul>
        {{/content}}{{/layout}}
        """#
}
