"""The code cells of the seeds' variables guide (English, Spanish and Japanese copies share them)
and the variables/autodiff cells of the basics guide, in order. `python variables_guide.py tf`
runs them under TensorFlow; the expected output next to this file is TensorFlow 2.21's."""

import sys

if len(sys.argv) > 1 and sys.argv[1] == "tf":
    import tensorflow as tf
else:
    import ferroflow as tf

my_tensor = tf.constant([[1.0, 2.0], [3.0, 4.0]])
my_variable = tf.Variable(my_tensor)
bool_variable = tf.Variable([False, False, False, True])
complex_variable = tf.Variable([5 + 4j, 6 + 1j])
print("Shape: ", my_variable.shape)
print("DType: ", my_variable.dtype)
print("As NumPy: ", my_variable.numpy())
print("A variable:", my_variable)
print("\nViewed as a tensor:", tf.convert_to_tensor(my_variable))
print("\nIndex of highest value:", tf.math.argmax(my_variable))
print("\nCopying and reshaping: ", tf.reshape(my_variable, [1, 4]))
a = tf.Variable([2.0, 3.0])
a.assign([1, 2])
try:
    a.assign([1.0, 2.0, 3.0])
except Exception as e:
    print(f"{type(e).__name__}: {e}")
a = tf.Variable([2.0, 3.0])
b = tf.Variable(a)
a.assign([5, 6])
print(a.numpy())
print(b.numpy())
print(a.assign_add([2, 3]).numpy())
print(a.assign_sub([7, 9]).numpy())
a = tf.Variable(my_tensor, name="Mark")
b = tf.Variable(my_tensor + 1, name="Mark")
print(a == b)
step_counter = tf.Variable(1, trainable=False)
with tf.device("CPU:0"):
    a = tf.Variable([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    b = tf.constant([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    c = tf.matmul(a, b)
print(c)
with tf.device("CPU:0"):
    a = tf.Variable([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    b = tf.Variable([[1.0, 2.0, 3.0]])
with tf.device("GPU:0"):
    k = a * b
print(k)
# basics guide: variables and autodiff
var = tf.Variable([0.0, 0.0, 0.0])
print(repr(var))
print(repr(var.assign([1, 2, 3])))
print(repr(var.assign_add([1, 1, 1])))
x = tf.Variable(1.0)


def f(x):
    y = x**2 + 2 * x - 5
    return y


print(repr(f(x)))
with tf.GradientTape() as tape:
    y = f(x)
g_x = tape.gradient(y, x)
print(repr(g_x))
