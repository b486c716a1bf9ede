extension Templates {
    static let recipeCard = #"""
        <li class="recipe-card">
        <a href="/recipes/{{id}}"><strong>{{name}}</strong></a>{{#isFavorite}} <span class="badge" title="Favourite">★</span>{{/isFavorite}}
        <small>{{minutes}} min · {{kcal}} kcal · {{cost}} a serving{{#diets}} · {{.}}{{/diets}}</small>
        {{#summary}}<p>{{summary}}</p>{{/summary}}
        {{#uses}}<p class="uses">From your pantry: {{uses}}</p>{{/uses}}
        </li>
        """#

    static let recipes = #"""
        {{<layout}}{{$content}}
        <nav class="tabs" aria-label="Recipes">
        <a href="/recipes"{{#tab_search}} aria-current="page"{{/tab_search}}>Search</a>
        <a href="/recipes?show=favorites"{{#tab_favorites}} aria-current="page"{{/tab_favorites}}>Favourites</a>
        <a href="/recipes?show=household"{{#tab_household}} aria-current="page"{{/tab_household}}>Household's</a>
        <a href="/recipes?show=mine"{{#tab_mine}} aria-current="page"{{/tab_mine}}>Mine</a>
        <a href="/recipes?show=community"{{#tab_community}} aria-current="page"{{/tab_community}}>Community</a>
        </nav>
        {{#tab_search}}
        <form method="get" action="/recipes" class="card stack" role="search">
        <input type="hidden" name="filters" value="1">
        <label for="q">Recipe or ingredient</label>
        <input id="q" name="q" type="search" value="{{query}}" maxlength="200">
        <label for="dish">Dish</label>
        <select id="dish" name="dish">
        <option value="">Any</option>
        {{#dishTypes}}<option value="{{value}}"{{#selected}} selected{{/selected}}>{{value}}</option>{{/dishTypes}}
        </select>
        <fieldset>
        <legend>Use my profile's</legend>
        {{#switches}}<label class="check"><input type="checkbox" name="{{name}}" value="1"{{#on}} checked{{/on}}> {{label}}</label>{{/switches}}
        <label class="check"><input type="checkbox" name="household" value="1"{{#household}} checked{{/household}}> and my household's</label>
        </fieldset>
        <label class="check"><input type="checkbox" name="pantry" value="1"{{#pantry}} checked{{/pantry}}> Uses what my pantry holds (what goes off first counts most)</label>
        <button type="submit" class="primary">Search</button>
        </form>
        {{/tab_search}}
        {{#householdText}}<p class="hint">For your household: {{householdText}}.</p>{{/householdText}}
        {{#pantryEmpty}}<p class="hint">Your pantry is empty: <a href="/pantry">add what you have</a>.</p>{{/pantryEmpty}}
        <p class="count" role="status">{{countText}}</p>
        <ul class="recipes">
        {{#recipes}}{{>recipe_card}}{{/recipes}}
        </ul>
        {{#morePage}}<p><a href="{{morePage}}" class="button">More recipes</a></p>{{/morePage}}
        <p><a href="/recipes/new" class="button">Write a recipe</a> <a href="/recipes/import" class="button">Import a recipe</a></p>
        {{/content}}{{/layout}}
        """#

    static let recipe = #"""
        {{<layout}}{{$content}}
        {{#recipe}}
        {{#photo}}<img class="photo" src="/recipes/{{id}}/photo" alt="Photo of {{name}}">{{/photo}}
        <p>{{summary}}</p>
        <p class="facts">{{minutes}} min · for {{people}} people · {{cost}} ({{costPerServing}} a serving){{#diets}} · {{.}}{{/diets}}</p>
        {{#unpriced}}<p class="facts">The cost leaves out what has no known price: {{unpriced}}.</p>{{/unpriced}}
        {{^empty(allergens)}}<p class="warning">Contains: {{#allergens}}{{.}} {{/allergens}}</p>{{/empty(allergens)}}
        <div class="actions">
        <a class="button primary" href="/cook/{{id}}">Cook it</a>
        <form method="post" action="/recipes/{{id}}/{{#isFavorite}}unfavorite{{/isFavorite}}{{^isFavorite}}favorite{{/isFavorite}}">
        <input type="hidden" name="csrf" value="{{csrf}}">
        <button type="submit">{{#isFavorite}}★ Favourite{{/isFavorite}}{{^isFavorite}}☆ Add to favourites{{/isFavorite}}</button>
        </form>
        <form method="post" action="/recipes/{{id}}/{{#isHouseholdFavorite}}householdUnfavorite{{/isHouseholdFavorite}}{{^isHouseholdFavorite}}householdFavorite{{/isHouseholdFavorite}}">
        <input type="hidden" name="csrf" value="{{csrf}}">
        <button type="submit">{{#isHouseholdFavorite}}♥ The household's favourite{{/isHouseholdFavorite}}{{^isHouseholdFavorite}}♡ Add to the household's favourites{{/isHouseholdFavorite}}</button>
        </form>
        <form method="post" action="/week/choose"><input type="hidden" name="csrf" value="{{csrf}}"><input type="hidden" name="recipe" value="{{id}}">
        <button type="submit">Choose for this week</button></form>
        <form method="post" action="/list/recipes"><input type="hidden" name="csrf" value="{{csrf}}"><input type="hidden" name="recipe" value="{{id}}">
        <button type="submit">Add to the list</button></form>
        {{#editable}}<a class="button" href="/recipes/{{id}}/edit">Edit</a>{{/editable}}
        {{#shareable}}<form method="post" action="/recipes/{{id}}/share"><input type="hidden" name="csrf" value="{{csrf}}"><button type="submit">Share with the community</button></form>{{/shareable}}
        {{#saveable}}<form method="post" action="/recipes/{{id}}/save"><input type="hidden" name="csrf" value="{{csrf}}"><button type="submit">Save a copy</button></form>{{/saveable}}
        </div>
        <form method="post" action="/week/put" class="card inline">
        <input type="hidden" name="csrf" value="{{csrf}}"><input type="hidden" name="recipe" value="{{id}}">
        <label for="plan-date">Plan on</label>
        <select id="plan-date" name="date">{{#days}}<option value="{{date}}">{{label}}</option>{{/days}}</select>
        <label for="plan-slot">for</label>
        <select id="plan-slot" name="slot"><option value="1">lunch</option><option value="2" selected>dinner</option></select>
        <button type="submit">Plan</button>
        </form>
        <h2>Ingredients</h2>
        <ul class="ingredients">
        {{#ingredients}}<li><span>{{amount}} {{name}}</span> <small>{{cost}}</small></li>{{/ingredients}}
        </ul>
        <h2>Method</h2>
        <ol class="steps">
        {{#steps}}<li>{{description}}{{#minutes}} <small>({{minutes}} min)</small>{{/minutes}}</li>{{/steps}}
        </ol>
        <h2>Nutrition per serving</h2>
        <table class="nutrition">
        <tbody>
        {{#nutrition}}<tr><th scope="row">{{label}}</th><td>{{value}}</td></tr>{{/nutrition}}
        </tbody>
        </table>
        {{#notes}}<h2>Notes</h2><p>{{notes}}</p>{{/notes}}
        {{#deletable}}
        <form method="post" action="/recipes/{{id}}/delete" class="danger-zone"><input type="hidden" name="csrf" value="{{csrf}}">
        <button type="submit" class="danger">Delete this recipe</button></form>
        {{/deletable}}
        {{/recipe}}
        {{/content}}{{/layout}}
        """#

    static let recipeForm = #"""
        {{<layout}}{{$content}}
        <form method="post" action="{{action}}" enctype="multipart/form-data" class="card stack">
        <input type="hidden" name="csrf" value="{{csrf}}">
        <label for="name">Name</label>
        <input id="name" name="name" required maxlength="200" value="{{draft.name}}">
        <label for="summary">Summary</label>
        <textarea id="summary" name="summary" rows="2" maxlength="2000">{{draft.summary}}</textarea>
        <div class="row">
        <span><label for="servings">Servings</label><input id="servings" name="servings" type="number" min="1" max="50" required value="{{draft.servings}}"></span>
        <span><label for="prep">Preparation (min)</label><input id="prep" name="prepMinutes" type="number" min="0" max="1440" value="{{draft.prep}}"></span>
        <span><label for="cookTime">Cooking (min)</label><input id="cookTime" name="cookMinutes" type="number" min="0" max="1440" value="{{draft.cook}}"></span>
        </div>
        <label for="ingredients">Ingredients, one a line: quantity, unit (g, kg, ml, l, piece, tsp, tbsp) and the ingredient</label>
        <textarea id="ingredients" name="ingredients" rows="8" required placeholder="200 g red lentils&#10;1 piece onion">{{draft.ingredients}}</textarea>
        <label for="steps">Steps, one a line</label>
        <textarea id="steps" name="steps" rows="8" required>{{draft.steps}}</textarea>
        <label for="dishType">Dish</label>
        <select id="dishType" name="dishType">{{#dishTypes}}<option value="{{value}}"{{#selected}} selected{{/selected}}>{{value}}</option>{{/dishTypes}}</select>
        <label for="photo">Photo (JPEG, PNG or WebP, at most 8 MiB)</label>
        <input id="photo" name="photo" type="file" accept="image/jpeg,image/png,image/webp">
        <button type="submit" class="primary">{{submitLabel}}</button>
        </form>
        {{/content}}{{/layout}}
        """#

    static let recipeImport = #"""
        {{<layout}}{{$content}}
        <form method="post" action="/recipes/import" enctype="multipart/form-data" class="card stack">
        <input type="hidden" name="csrf" value="{{csrf}}">
        <label for="url">A recipe page's address</label>
        <input id="url" name="url" type="url" inputmode="url" placeholder="https://" value="{{url}}">
        <label for="document">or a recipe page saved from a website (HTML), or a schema.org Recipe (JSON-LD)</label>
        <input id="document" name="document" type="file" accept=".html,.htm,.json,.jsonld,text/html,application/json,application/ld+json">
        <button type="submit" class="primary">Import</button>
        </form>
        {{^empty(imported)}}<h2>Imported</h2><ul>{{#imported}}<li><a href="/recipes/{{id}}">{{name}}</a></li>{{/imported}}</ul>{{/empty(imported)}}
        {{^empty(matched)}}<h2>Lines matched by likeness or by your answers</h2><ul>{{#matched}}<li>{{.}}</li>{{/matched}}</ul>{{/empty(matched)}}
        {{^empty(unmatched)}}<h2>Lines not matched to an ingredient</h2><ul>{{#unmatched}}<li>{{.}}</li>{{/unmatched}}</ul>{{/empty(unmatched)}}
        {{/content}}{{/layout}}
        """#
}
